import { Client, type ClientOptions, type WorkflowClientInterceptor } from '@temporalio/client';
import { OneQueryPerWorkflow } from './one-query-per-workflow.js';

export interface HeraldClientOptions {
  connection: ClientOptions['connection'];
  namespace: string;
  dataConverter?: ClientOptions['dataConverter'];
  /** Interceptors that run outside Herald's own (tracing). */
  interceptors?: WorkflowClientInterceptor[];
}

/** Every Temporal client Herald builds, so each carries the same interceptors. */
export function newHeraldClient(o: HeraldClientOptions): Client {
  return new Client({
    connection: o.connection,
    namespace: o.namespace,
    dataConverter: o.dataConverter,
    interceptors: { workflow: [...(o.interceptors ?? []), new OneQueryPerWorkflow(o.namespace)] },
  });
}
