import { createRoute, z } from '@hono/zod-openapi';
import { problemResponse } from '../openapi.js';

const forwardsSchema = z.array(z.object({ id: z.string(), destinationId: z.string() }));

/**
 * R-RH-INBOUND: `POST /in/{ingestId}`, the public ingest URL. No API key: the unguessable
 * id and the source's signature check guard it.
 */
export const receive = createRoute({
  method: 'post',
  path: '/{sourceId}',
  summary: 'Receive a webhook on a source: kept byte-for-byte and forwarded to every destination',
  description:
    'Public (no API key). Any content type; the body and headers are forwarded as received. ' +
    'Signed per the source (Standard Webhooks or an HMAC-of-body header) when it says so.',
  security: [],
  request: {
    params: z.object({ sourceId: z.string() }),
    body: {
      content: { '*/*': { schema: z.string().openapi({ format: 'binary' }) } },
      required: false,
    },
  },
  responses: {
    200: {
      description:
        'A repeat of a Standard Webhooks message (same webhook-id) already accepted: nothing is ' +
        'forwarded again; the answer names the first request and its forwards, with duplicate: true',
      content: {
        'application/json': {
          schema: z.object({
            requestId: z.string(),
            forwards: forwardsSchema,
            duplicate: z.literal(true),
          }),
        },
      },
    },
    202: {
      description:
        'Durably accepted; one forward per destination. A repeat of a signed message that ' +
        'arrived in a batch is also answered 202, with the ids of the first request',
      content: {
        'application/json': {
          schema: z.object({
            requestId: z.string(),
            forwards: forwardsSchema,
          }),
        },
      },
    },
    401: problemResponse('invalid_signature'),
    404: problemResponse('No such source'),
    413: problemResponse('payload_too_large'),
    429: problemResponse("rate_limited: over the source's request rate; see Retry-After"),
    503: problemResponse('Not accepted: Temporal is unreachable; send again'),
  },
});
