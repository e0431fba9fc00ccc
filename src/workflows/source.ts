import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import {
  DESTINATION_NOT_FOUND,
  MAX_DESTINATIONS,
  SOURCE_DELETED,
  TOO_MANY_DESTINATIONS,
  addDestinationUpdate,
  deleteSourceUpdate,
  removeDestinationUpdate,
  sourceSnapshotQuery,
  sourceViewQuery,
  updateDestinationUpdate,
  updateSourceUpdate,
} from '../shared/source-messages.js';
import type {
  Destination,
  SourceConfig,
  SourceInput,
  SourceSnapshot,
  SourceView,
  VerificationView,
} from '../shared/source-types.js';

const MAX_HISTORY_EVENTS = 5_000;

function verificationView(c: SourceConfig): VerificationView {
  const v = c.verification;
  switch (v.kind) {
    case 'none':
      return { kind: 'none' };
    case 'standard_webhooks':
      return { kind: v.kind, toleranceSeconds: v.toleranceSeconds, secretCount: v.secrets.length };
    case 'hmac':
      return {
        kind: v.kind,
        header: v.header,
        algorithm: v.algorithm,
        encoding: v.encoding,
        prefix: v.prefix,
        secretCount: v.secrets.length,
      };
  }
}

/**
 * One inbound source (R-RH-INBOUND): its verification settings and destinations. A
 * long-lived entity the API reads through queries and changes through updates; it holds
 * configuration only. Received requests never pass through it: each becomes its own
 * forward workflow, so a busy source adds nothing to this history.
 */
export async function sourceWorkflow(input: SourceInput): Promise<SourceView> {
  let config: SourceConfig = input.config;
  let destinations: Destination[] = input.destinations;
  let deleted = input.carried?.deleted ?? false;

  // A legacy source (created before issue 13.7) answers to its workflow id.
  const ingestId = input.ingestId ?? input.sourceId;
  const view = (): SourceView => ({
    sourceId: input.sourceId,
    ingestId,
    tenantId: input.tenantId,
    name: config.name,
    description: config.description,
    verification: verificationView(config),
    maxBodyBytes: config.maxBodyBytes,
    destinations,
    createdAt: input.createdAt,
    deleted,
  });
  const snapshot = (): SourceSnapshot => ({
    sourceId: input.sourceId,
    ingestId,
    tenantId: input.tenantId,
    config,
    destinations,
    deleted,
  });
  const live = () => {
    if (deleted) throw ApplicationFailure.nonRetryable('the source is deleted', SOURCE_DELETED);
  };
  const find = (id: string) => {
    const d = destinations.find((x) => x.destinationId === id);
    if (!d) throw ApplicationFailure.nonRetryable(`no destination ${id}`, DESTINATION_NOT_FOUND);
    return d;
  };

  setHandler(sourceViewQuery, view);
  setHandler(sourceSnapshotQuery, snapshot);
  setHandler(
    updateSourceUpdate,
    (patch) => {
      config = {
        ...config,
        ...(patch.name !== undefined ? { name: patch.name } : {}),
        ...(patch.description !== undefined ? { description: patch.description } : {}),
        ...(patch.verification !== undefined ? { verification: patch.verification } : {}),
        ...(patch.maxBodyBytes !== undefined ? { maxBodyBytes: patch.maxBodyBytes } : {}),
      };
      return view();
    },
    { validator: (_patch) => live() },
  );
  setHandler(
    addDestinationUpdate,
    (d) => {
      destinations = [...destinations, d];
      return view();
    },
    {
      validator: (_d) => {
        live();
        if (destinations.length >= MAX_DESTINATIONS)
          throw ApplicationFailure.nonRetryable(
            `at most ${MAX_DESTINATIONS} destinations`,
            TOO_MANY_DESTINATIONS,
          );
      },
    },
  );
  setHandler(
    updateDestinationUpdate,
    ({ destinationId, patch }) => {
      const d = find(destinationId);
      const next: Destination = { ...d };
      if (patch.url !== undefined) next.url = patch.url;
      if (patch.description !== undefined) next.description = patch.description;
      if (patch.policy !== undefined) next.policy = patch.policy ?? undefined;
      if (patch.transformation !== undefined) next.transformation = patch.transformation ?? undefined;
      destinations = destinations.map((x) => (x.destinationId === destinationId ? next : x));
      return view();
    },
    {
      validator: ({ destinationId }) => {
        live();
        find(destinationId);
      },
    },
  );
  setHandler(
    removeDestinationUpdate,
    ({ destinationId }) => {
      destinations = destinations.filter((x) => x.destinationId !== destinationId);
      return view();
    },
    {
      validator: ({ destinationId }) => {
        live();
        find(destinationId);
      },
    },
  );
  setHandler(deleteSourceUpdate, () => {
    deleted = true;
    return view();
  });

  const mustRollOver = () =>
    workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > MAX_HISTORY_EVENTS;
  await condition(() => deleted || mustRollOver());
  await condition(allHandlersFinished);
  // A deleted source ends; its final view answers queries (the ingest URL then says 404).
  if (deleted) return view();
  return continueAsNew<typeof sourceWorkflow>({ ...input, config, destinations, carried: { deleted } });
}
