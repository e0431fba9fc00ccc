import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

// Herald's custom search attributes: Temporal visibility is Herald's index, so every
// list the API offers is a query over these keys. Operators use the same names in the Web UI.
export const SA_TENANT = defineSearchAttributeKey('HeraldTenant', SearchAttributeType.KEYWORD);
export const SA_ENDPOINT = defineSearchAttributeKey('HeraldEndpoint', SearchAttributeType.KEYWORD);
export const SA_EVENT_TYPE = defineSearchAttributeKey('HeraldEventType', SearchAttributeType.KEYWORD);
export const SA_EVENT_ID = defineSearchAttributeKey('HeraldEventId', SearchAttributeType.KEYWORD);
export const SA_STATUS = defineSearchAttributeKey('HeraldStatus', SearchAttributeType.KEYWORD);
export const SA_PRESET = defineSearchAttributeKey('HeraldPreset', SearchAttributeType.KEYWORD);

export const HERALD_SEARCH_ATTRIBUTES = [SA_TENANT, SA_ENDPOINT, SA_EVENT_TYPE, SA_EVENT_ID, SA_STATUS, SA_PRESET];

/** `name=Keyword` pairs as the Temporal CLI's `--search-attribute` flag takes them. */
export function searchAttributeCliArgs(): string[] {
  return HERALD_SEARCH_ATTRIBUTES.flatMap((k) => ['--search-attribute', `${k.name}=Keyword`]);
}
