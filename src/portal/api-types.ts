// The JSON the portal reads from Herald's API: only the fields it shows.

export interface EndpointJson {
  endpointId: string;
  config: {
    url: string;
    preset: string;
    description?: string;
    eventTypes?: string[];
    policy?: Record<string, unknown>;
  };
  health: { status: string };
  banner?: { reason: string; message?: string; since?: number };
  lastTest?: { ok?: boolean; httpStatus?: number; code?: string; at?: string };
  secretCount: number;
  createdAt: number;
}

export interface DeliveryRowJson {
  id: string;
  endpointId: string;
  eventType: string;
  eventId: string;
  status: string;
  createdAt: string;
}

export interface AttemptJson {
  kind: string;
  attempt: number;
  round: number;
  startedAt: string;
  latencyMs: number;
  httpStatus?: number;
  code?: string;
  responseBody?: string;
  responseBodyEncoding?: string;
  sent?: { body: string; truncated?: true };
  detail?: string;
}

export interface DeliveryJson extends DeliveryRowJson {
  round: number;
  attemptCount: number;
  responseCode: number | null;
  nextAttemptAt?: string;
  lastError?: string;
  body?: string;
  attempts: AttemptJson[];
}

export interface DeadLetterJson {
  id: string;
  endpointId: string;
  eventType: string;
  createdAt: string;
  attemptCount: number;
  lastError: string | null;
  retryable: boolean;
}

export interface PreviewItemJson {
  id: string;
  endpointId: string;
  eventType: string;
  status: string;
  createdAt: string;
  attemptCount: number;
  lastError: string | null;
  nextAttemptAt?: string;
  reason?: string;
}

export interface PreviewJson {
  blocked: PreviewItemJson[];
  waiting: PreviewItemJson[];
  ready: PreviewItemJson[];
  counts: { blocked: number; waiting: number; ready: number };
  truncated: boolean;
}

export interface AttemptRowJson {
  deliveryId: string;
  startedAt: string;
  latencyMs: number;
  result: 'succeeded' | 'failed';
}
