export interface ApiKeyRecord {
  keyId: string;
  /** sha256 of the secret part, hex; the key itself is shown once and never stored. */
  hash: string;
  createdAt: number;
  revokedAt?: number;
}

export interface TenantInput {
  tenantId: string;
  name: string;
  billingEmail?: string;
  createdAt: number;
  carried?: TenantCarried;
}

export interface TenantCarried {
  subscriptionActive: boolean;
  apiKeys: ApiKeyRecord[];
  billingEmail?: string;
  name: string;
  replayDay?: { day: number; used: number };
  replayMinute?: { minute: number; used: number };
}

export interface TenantView {
  tenantId: string;
  name: string;
  billingEmail?: string;
  subscriptionActive: boolean;
  createdAt: number;
  apiKeys: Array<Omit<ApiKeyRecord, 'hash'>>;
}

export type ReplayKind = 'window' | 'request';

export type ReplayAdmission =
  | { allowed: true }
  | { allowed: false; code: 'WebhookReplayQuotaExceeded' | 'replay_rate_limited'; retryAfterSeconds: number };
