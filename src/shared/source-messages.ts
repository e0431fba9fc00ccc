// Messages of the source workflow, shared by the API and the workflow.
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type {
  Destination,
  DestinationPatch,
  SourcePatch,
  SourceSnapshot,
  SourceView,
} from './source-types.js';

export const sourceViewQuery = defineQuery<SourceView>('sourceView');
/** Secrets included: only the API's ingest route reads it. */
export const sourceSnapshotQuery = defineQuery<SourceSnapshot>('sourceSnapshot');

export const updateSourceUpdate = defineUpdate<SourceView, [SourcePatch]>('updateSource');
export const addDestinationUpdate = defineUpdate<SourceView, [Destination]>('addDestination');
export const updateDestinationUpdate = defineUpdate<
  SourceView,
  [{ destinationId: string; patch: DestinationPatch }]
>('updateDestination');
export const removeDestinationUpdate = defineUpdate<SourceView, [{ destinationId: string }]>(
  'removeDestination',
);
export const deleteSourceUpdate = defineUpdate<SourceView>('deleteSource');

/** Update refusals; the API maps them to 404 / 409. */
export const DESTINATION_NOT_FOUND = 'destination_not_found';
export const TOO_MANY_DESTINATIONS = 'too_many_destinations';
export const SOURCE_DELETED = 'source_deleted';
/** Most destinations one source forwards to. */
export const MAX_DESTINATIONS = 20;
