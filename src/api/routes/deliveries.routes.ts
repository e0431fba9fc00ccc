import { createRoute, z } from '@hono/zod-openapi';
import { deliveryListQuery, deliveryParams, deliverySchema, rowSchema } from '../delivery-schemas.js';
import { problemResponse } from '../openapi.js';

export const listDeliveries = createRoute({
  method: 'get',
  path: '/',
  summary: "The tenant's deliveries, newest first, filtered by endpoint, status, event type and start time",
  request: { query: deliveryListQuery },
  responses: {
    200: {
      description: 'Deliveries',
      content: { 'application/json': { schema: z.object({ data: z.array(rowSchema) }) } },
    },
    400: problemResponse('Invalid filter'),
  },
});

export const recentDeliveries = createRoute({
  method: 'get',
  path: '/recent',
  summary:
    'The 25 newest deliveries across all endpoints: time, event type, response code, attempts and body',
  responses: {
    200: {
      description: 'Recent deliveries',
      content: { 'application/json': { schema: z.object({ data: z.array(deliverySchema) }) } },
    },
  },
});

export const getDelivery = createRoute({
  method: 'get',
  path: '/{id}',
  summary: 'One delivery with its event body and attempt log, newest first',
  request: { params: deliveryParams },
  responses: {
    200: { description: 'The delivery', content: { 'application/json': { schema: deliverySchema } } },
    404: problemResponse('No such delivery'),
  },
});
