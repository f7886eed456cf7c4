/**
 * The API's shapes as /openapi.json describes them, generated from src/api/openapi.ts by
 * `npm run console:types` (scripts/console-types.mjs, openapi-typescript). Do not edit: change the
 * route's schema and generate again.
 *
 * @generated
 * @module console/generated/api-types
 */
export interface paths {
  '/healthz': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Liveness: the process answers */
    get: operations['getHealthz'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/readyz': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Readiness: the database answers, is migrated and takes writes (503 while it cannot be reached or its storage is full) */
    get: operations['getReadyz'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/auth/m2m/token': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Exchange client credentials for an access token
     * @description piiAccess defaults to "all"; a client limited to "redacted" gets "redacted" when it asks for nothing and 403 when it asks for "all".
     */
    post: operations['postV1AuthM2mToken'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/v1/inbound/icas': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List ica mappings (config and database) */
    get: operations['getAdminV1InboundIcas'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/v1/inbound/icas/{ica}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /** Map an ica to an organization; its unmatched notifications are queued for decryption */
    put: operations['putAdminV1InboundIcasIca'];
    post?: never;
    /** Remove a database ica mapping */
    delete: operations['deleteAdminV1InboundIcasIca'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/v1/inbound/events': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List received card-network notifications, oldest first */
    get: operations['getAdminV1InboundEvents'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/v1/inbound/events/{eventId}/retry': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Requeue a failed notification for decryption */
    post: operations['postAdminV1InboundEventsEventIdRetry'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/webhooks/card-network': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Receive a card-network notification
     * @description Body: eventId, eventType, eventCreatedDate, ica (strings, 1 to 255 characters) and data (the compact JWE string, or an object holding it in one member), and nothing else. Stored as received before the 200; the same eventId and ica again answers 200 without being processed twice. Decryption runs afterwards.
     */
    post: operations['postV1WebhooksCardNetwork'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/identities': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List identities
     * @description Ordered by id; hasMore is exact. Tokens with piiAccess "redacted" get masked personal data and may not use the name or email filters (403 problem naming the parameter): a prefix filter would reveal a masked value one character at a time.
     */
    get: operations['getV1Identities'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/accounts/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Get an account
     * @description The deprecated fields type, pfi and web3Provider appear only when accounts.legacyFields is on, with a Deprecation header.
     */
    get: operations['getV1AccountsId'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/refunds/config': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Get the default refund destination
     * @description null when none is set. isStaleWarning after 30 days, isStaleReject after 90 days since verifiedAt.
     */
    get: operations['getV1RefundsConfig'];
    put?: never;
    /**
     * Set the default refund destination
     * @description Replaces the default and sets verifiedAt to now. Plans paused on the replaced default are planned again against the new one.
     */
    post: operations['postV1RefundsConfig'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/refunds/config/reconfirm': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Re-confirm the default refund destination
     * @description Sets verifiedAt to now; refund plans paused because this default was stale are dispatched (never those of a default it replaced).
     */
    post: operations['postV1RefundsConfigReconfirm'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/organizations/integrations/provider-a': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /**
     * Connect a company at provider-a (company credentials)
     * @deprecated
     */
    put: operations['putV1OrganizationsIntegrationsProviderA'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/organizations/integrations/provider-b': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /** Connect the organization's PFI account at provider-b (client credentials) */
    put: operations['putV1OrganizationsIntegrationsProviderB'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/organizations/integrations/provider-c': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /**
     * Create a partner key at provider-c
     * @deprecated
     */
    put: operations['putV1OrganizationsIntegrationsProviderC'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/organizations/network': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Countries, networks and assets available to the organization */
    get: operations['getV1OrganizationsNetwork'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/deposits/countries': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Countries available for deposits (deprecated; use GET /v1/organizations/network)
     * @deprecated
     */
    get: operations['getV1DepositsCountries'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/transactions/import-benchmark-summary': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Portfolio-level cost against market over classified transactions
     * @description Only Competitive, InLine and OffMarket transactions are in the sample. A createdAt date filter cannot be combined with an updatedAt one.
     */
    get: operations['getV1TransactionsImportBenchmarkSummary'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/v1/organizations': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Every organization (id and name) */
    get: operations['getAdminV1Organizations'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/v1/organizations/{orgId}/identities': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Create an identity */
    post: operations['postAdminV1OrganizationsOrgIdIdentities'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/v1/organizations/{orgId}/identities/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    /** Set an identity's deleted and hasComplianceChecks flags */
    patch: operations['patchAdminV1OrganizationsOrgIdIdentitiesId'];
    trace?: never;
  };
  '/admin/v1/organizations/{orgId}/accounts': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Create an account */
    post: operations['postAdminV1OrganizationsOrgIdAccounts'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/v1/refund-plans': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List refund plans */
    get: operations['getAdminV1RefundPlans'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/v1/refund-plans/{id}/dispatch': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Dispatch a refund plan in state Created or Paused */
    post: operations['postAdminV1RefundPlansIdDispatch'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/notifications/events/stream': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Follow the organization's events as server-sent events
     * @description text/event-stream. Where it starts: with no position, now (only events written after the connection, like `stripe listen`); `?since=<ISO time>` replays the events created from that time on; Last-Event-ID (or ?after=) resumes after that event and wins over since. Messages: `ready` first (id = the starting position, data {from: now|after|since, after}), then `signing-key` (data {keyId, publicKey, algorithm}) before any event and after each rotation, then one message per event, oldest first (id = event id, event = event type, data = {body, signature, keyId, traceparent?}; body is the exact signed JSON as a string; traceparent, when borderd traces, is the W3C trace context the event was written under, unsigned). Resume with the id of the last message received. A `: heartbeat` comment is sent every eventStream.heartbeatMs.
     */
    get: operations['getV1NotificationsEventsStream'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/v1/webhooks': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List webhooks with their health and why and when each disabled one was disabled */
    get: operations['getAdminV1Webhooks'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/v1/webhooks/{id}/disable': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Disable a webhook; its pending deliveries are kept as skipped, and an operator alert says who disabled it */
    post: operations['postAdminV1WebhooksIdDisable'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/v1/webhooks/{id}/enable': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Enable a webhook again (replays are `borderd webhooks enable --replay-since`) */
    post: operations['postAdminV1WebhooksIdEnable'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/notifications/webhooks/settings/public-key': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The organization's current public key for x-signature
     * @description With keyId (the x-signature-key-id of a delivery): that key, also one a rotation replaced less than webhooks.rotationOverlapSeconds ago, so a receiver that meets an unknown key id can fetch it.
     */
    get: operations['getV1NotificationsWebhooksSettingsPublicKey'];
    put?: never;
    /**
     * Regenerate the organization's key pair
     * @description Signatures made after this call verify only with the returned key. The replaced key stays readable by its id (GET with ?keyId=) for webhooks.rotationOverlapSeconds.
     */
    post: operations['postV1NotificationsWebhooksSettingsPublicKey'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/notifications/webhooks/settings': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** All webhooks of the organization */
    get: operations['getV1NotificationsWebhooksSettings'];
    put?: never;
    /**
     * Register a webhook URL
     * @description The organization's signing key pair is generated with its first webhook. Each webhook gets its own Standard Webhooks secret, shown in this answer once.
     */
    post: operations['postV1NotificationsWebhooksSettings'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/notifications/webhooks/settings/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One webhook */
    get: operations['getV1NotificationsWebhooksSettingsId'];
    put?: never;
    post?: never;
    /** Delete a webhook; its pending deliveries are cancelled (kept, not sent) */
    delete: operations['deleteV1NotificationsWebhooksSettingsId'];
    options?: never;
    head?: never;
    /** Update a webhook (url required; enabled defaults to true, which re-enables a disabled one) */
    patch: operations['patchV1NotificationsWebhooksSettingsId'];
    trace?: never;
  };
  '/v1/notifications/webhooks/settings/{id}/secret': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The webhook's Standard Webhooks secret
     * @description The secret that signs webhook-signature (v1, HMAC-SHA256). A webhook made before secrets existed has none until its first rotation.
     */
    get: operations['getV1NotificationsWebhooksSettingsIdSecret'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/notifications/webhooks/settings/{id}/secret/rotate': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Rotate the webhook's Standard Webhooks secret
     * @description A new secret signs at once; the replaced one signs beside it (both v1 signatures in webhook-signature) for webhooks.rotationOverlapSeconds. A rotation while that window is open replaces the pending secret (the one the open rotation made); the old one keeps signing until its original end.
     */
    post: operations['postV1NotificationsWebhooksSettingsIdSecretRotate'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/organizations/{id}/jwks.json': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The organization's public signing keys as a JSON Web Key Set (no token needed)
     * @description RSA keys (alg RS256, kid = x-signature-key-id) and Ed25519 keys (alg EdDSA, for webhook-signature v1a): the current ones and those a rotation replaced less than webhooks.rotationOverlapSeconds ago. Cacheable for 300 s; fetch again when a delivery names a kid the cached set lacks.
     */
    get: operations['getV1OrganizationsIdJwksJson'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/notifications/webhooks/health': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Every webhook with its health */
    get: operations['getV1NotificationsWebhooksHealth'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/notifications/webhooks/settings/{id}/health': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A webhook's health: success rate and latency over the last hour and day, failures in a row, next attempt, why it was disabled */
    get: operations['getV1NotificationsWebhooksSettingsIdHealth'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/notifications/webhooks/settings/{id}/deliveries': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A webhook's deliveries, newest first
     * @description Filtered by state, event type and creation time; pages with startingAfter (a delivery of this webhook) and hasMore.
     */
    get: operations['getV1NotificationsWebhooksSettingsIdDeliveries'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/notifications/webhooks/settings/{id}/replay': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Replay a time range or a list of events to this webhook
     * @description Idempotent: a delivery already pending is left alone. A range of more than 10000 events is refused (replay_too_large) before anything is queued; at most 1000 eventIds. Events of types the webhook filters out are not queued. On the organization's own token, one replay per webhook at a time, and at most webhooks.replayEventsPerHour events queued by replay per hour (per node).
     */
    post: operations['postV1NotificationsWebhooksSettingsIdReplay'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/notifications/webhooks/settings/{id}/test': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Send a test event to this webhook and answer with its first attempt
     * @description The event is of type `test.<type>` (a receiver refuses test events by that prefix, inside the signed body); its data is `{ id, createdAt, updatedAt, synthetic: true, testData }`: a new id naming nothing stored, and the caller's data under `testData`. It is queued for this webhook alone, whatever its event-type filter, appears in the event log and is kept retention.testEventHours. 200 with the attempt, or 202 with `attempt: null` when the dispatcher has not made it within the send timeout.
     */
    post: operations['postV1NotificationsWebhooksSettingsIdTest'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/notifications/deliveries/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One delivery with its attempts (status, duration, error, first KiB of the answer, request headers) */
    get: operations['getV1NotificationsDeliveriesId'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/notifications/deliveries/{id}/retry': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Retry one delivery now
     * @description A pending delivery becomes due now; a finished one (delivered, failed, skipped, cancelled) starts a new retry cycle, due now.
     */
    post: operations['postV1NotificationsDeliveriesIdRetry'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/notifications/webhooks/settings/{id}/blocked': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A webhook's blocked resources: ordered lines held by a head that has failed
     * @description On a webhook with ordering resource (or webhook), each resource whose oldest pending delivery has been tried without success while later ones wait behind it. Skip or cancel the head to release the rest.
     */
    get: operations['getV1NotificationsWebhooksSettingsIdBlocked'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/notifications/deliveries/{id}/skip': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Skip a pending delivery (kept as skipped: a replay sends it again)
     * @description Takes a pending delivery out of its line unsent. On an ordered webhook this releases the deliveries of its resource (or of the webhook, in strict order) that wait behind it: the next one becomes the head and goes.
     */
    post: operations['postV1NotificationsDeliveriesIdSkip'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/notifications/deliveries/{id}/cancel': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Cancel a pending delivery (cancelled: it is not sent)
     * @description Takes a pending delivery out of its line unsent. On an ordered webhook this releases the deliveries of its resource (or of the webhook, in strict order) that wait behind it: the next one becomes the head and goes.
     */
    post: operations['postV1NotificationsDeliveriesIdCancel'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/notifications/events': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The organization's events, newest first, with where each went
     * @description Filtered by type and creation time; pages with startingAfter (an event of the organization) and hasMore.
     */
    get: operations['getV1NotificationsEvents'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/v1/organizations/{orgId}/notifications/webhooks/health': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Every webhook with its health */
    get: operations['getAdminV1OrganizationsOrgIdNotificationsWebhooksHealth'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/v1/organizations/{orgId}/notifications/webhooks/settings/{id}/health': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A webhook's health: success rate and latency over the last hour and day, failures in a row, next attempt, why it was disabled */
    get: operations['getAdminV1OrganizationsOrgIdNotificationsWebhooksSettingsIdHealth'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/v1/organizations/{orgId}/notifications/webhooks/settings/{id}/deliveries': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A webhook's deliveries, newest first
     * @description Filtered by state, event type and creation time; pages with startingAfter (a delivery of this webhook) and hasMore.
     */
    get: operations['getAdminV1OrganizationsOrgIdNotificationsWebhooksSettingsIdDeliveries'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/v1/organizations/{orgId}/notifications/webhooks/settings/{id}/replay': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Replay a time range or a list of events to this webhook
     * @description Idempotent: a delivery already pending is left alone. A range of more than 10000 events is refused (replay_too_large) before anything is queued; at most 1000 eventIds. Events of types the webhook filters out are not queued. On the organization's own token, one replay per webhook at a time, and at most webhooks.replayEventsPerHour events queued by replay per hour (per node).
     */
    post: operations['postAdminV1OrganizationsOrgIdNotificationsWebhooksSettingsIdReplay'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/v1/organizations/{orgId}/notifications/webhooks/settings/{id}/test': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Send a test event to this webhook and answer with its first attempt
     * @description The event is of type `test.<type>` (a receiver refuses test events by that prefix, inside the signed body); its data is `{ id, createdAt, updatedAt, synthetic: true, testData }`: a new id naming nothing stored, and the caller's data under `testData`. It is queued for this webhook alone, whatever its event-type filter, appears in the event log and is kept retention.testEventHours. 200 with the attempt, or 202 with `attempt: null` when the dispatcher has not made it within the send timeout.
     */
    post: operations['postAdminV1OrganizationsOrgIdNotificationsWebhooksSettingsIdTest'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/v1/organizations/{orgId}/notifications/deliveries/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One delivery with its attempts (status, duration, error, first KiB of the answer, request headers) */
    get: operations['getAdminV1OrganizationsOrgIdNotificationsDeliveriesId'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/v1/organizations/{orgId}/notifications/deliveries/{id}/retry': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Retry one delivery now
     * @description A pending delivery becomes due now; a finished one (delivered, failed, skipped, cancelled) starts a new retry cycle, due now.
     */
    post: operations['postAdminV1OrganizationsOrgIdNotificationsDeliveriesIdRetry'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/v1/organizations/{orgId}/notifications/webhooks/settings/{id}/blocked': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A webhook's blocked resources: ordered lines held by a head that has failed
     * @description On a webhook with ordering resource (or webhook), each resource whose oldest pending delivery has been tried without success while later ones wait behind it. Skip or cancel the head to release the rest.
     */
    get: operations['getAdminV1OrganizationsOrgIdNotificationsWebhooksSettingsIdBlocked'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/v1/organizations/{orgId}/notifications/deliveries/{id}/skip': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Skip a pending delivery (kept as skipped: a replay sends it again)
     * @description Takes a pending delivery out of its line unsent. On an ordered webhook this releases the deliveries of its resource (or of the webhook, in strict order) that wait behind it: the next one becomes the head and goes.
     */
    post: operations['postAdminV1OrganizationsOrgIdNotificationsDeliveriesIdSkip'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/v1/organizations/{orgId}/notifications/deliveries/{id}/cancel': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Cancel a pending delivery (cancelled: it is not sent)
     * @description Takes a pending delivery out of its line unsent. On an ordered webhook this releases the deliveries of its resource (or of the webhook, in strict order) that wait behind it: the next one becomes the head and goes.
     */
    post: operations['postAdminV1OrganizationsOrgIdNotificationsDeliveriesIdCancel'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/v1/organizations/{orgId}/notifications/events': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The organization's events, newest first, with where each went
     * @description Filtered by type and creation time; pages with startingAfter (an event of the organization) and hasMore.
     */
    get: operations['getAdminV1OrganizationsOrgIdNotificationsEvents'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/v1/transactions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Create an orchestrated transaction (status Submitted; emits Transaction_Created) */
    post: operations['postAdminV1Transactions'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/v1/transactions/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One orchestrated transaction */
    get: operations['getAdminV1TransactionsId'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/v1/transactions/{id}/status': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Move a transaction along the status machine (emits Transaction_Updated; 409 for an illegal move) */
    post: operations['postAdminV1TransactionsIdStatus'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/v1/compliance-checks': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Start an identity compliance check (status Pending; emits IdentityComplianceCheck_Updated) */
    post: operations['postAdminV1ComplianceChecks'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/v1/compliance-checks/{id}/status': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Move a compliance check (Completed emits IdentityComplianceCheck_Completed) */
    post: operations['postAdminV1ComplianceChecksIdStatus'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/v1/virtual-accounts': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Record a virtual account outcome (emits VirtualAccount_Created or VirtualAccount_CreationFailed) */
    post: operations['postAdminV1VirtualAccounts'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/admin/v1/events': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Emit a synthetic event of any type through the outbox (for testing receivers) */
    post: operations['postAdminV1Events'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export interface webhooks {
  event: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * An event delivered to a webhook URL
     * @description Sent to every enabled webhook of the organization, retried on anything but a 2xx. Verify x-signature with the organization's public key, or webhook-signature with the webhook's secret (any Standard Webhooks library).
     */
    post: operations['eventDelivery'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export interface components {
  schemas: {
    InboundNotification: {
      id: string;
      eventId: string;
      eventType: string;
      eventCreatedDate: string;
      ica: string;
      organizationId: string | null;
      state: components['schemas']['InboundState'];
      attempts: number;
      nextAttemptAt: string | null;
      failureCode: string | null;
      failureReason: string | null;
      kid: string | null;
      receivedAt: string;
      decryptedAt: string | null;
    };
    /** @enum {string} */
    InboundState: 'received' | 'decrypted' | 'failed' | 'unmatched';
    WebhookHealth: {
      webhookId: string;
      enabled: boolean;
      /** @description why borderd disabled it; null when enabled or disabled by its owner */
      disabledReason: string | null;
      disabledAt: string | null;
      lastSuccessAt: string | null;
      failuresInARow: number;
      pending: number;
      /** @description when the next attempt is due; null when nothing is pending */
      nextAttemptAt: string | null;
      lastHour: components['schemas']['PeriodStats'];
      lastDay: components['schemas']['PeriodStats'];
      /** @description its last attempt (of the last hour) took delivery.slowAfterMs or longer: it gives way to quicker endpoints */
      slow: boolean;
      /** @description the last 24 hours, one entry per UTC hour that had attempts */
      hourly: {
        attempts: number;
        /** @description attempts answered with a 2xx */
        succeeded: number;
        /** @description succeeded / attempts, from 0 to 1; null without attempts */
        successRate: number | null;
        /** @description mean duration of the attempts; null without attempts */
        meanLatencyMs: number | null;
        /**
         * Format: date-time
         * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
         */
        hour: string;
      }[];
    };
    PeriodStats: {
      attempts: number;
      /** @description attempts answered with a 2xx */
      succeeded: number;
      /** @description succeeded / attempts, from 0 to 1; null without attempts */
      successRate: number | null;
      /** @description mean duration of the attempts; null without attempts */
      meanLatencyMs: number | null;
    };
    Delivery: {
      id: string;
      eventId: string;
      eventType: string;
      webhookId: string;
      /** @description the organization whose event it is */
      orgId: string;
      state: components['schemas']['DeliveryState'];
      attempts: number;
      /** @description the step of the retry schedule its next attempt is at */
      step: number;
      /** @description a dispatcher holds it: its attempt is being sent */
      inFlight: boolean;
      /** @description on an ordered webhook, the pending delivery at the head of its line (dlv_…), which must succeed or be skipped or cancelled before this one goes; null when nothing is ahead */
      waitingBehind: string | null;
      /** @description when it is next tried; null unless pending */
      nextAttemptAt: string | null;
      lastStatus: number | null;
      lastError: string | null;
      deliveredAt: string | null;
      /**
       * Format: date-time
       * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
       */
      createdAt: string;
      /**
       * Format: date-time
       * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
       */
      updatedAt: string;
    };
    /** @enum {string} */
    DeliveryState: 'pending' | 'delivered' | 'failed' | 'skipped' | 'cancelled';
    ReplayResult: {
      /** @description events considered */
      events: number;
      /** @description deliveries queued (rows already pending and types the webhook filters out are not) */
      requeued: number;
    };
    TestEventResult: {
      event: {
        id: string;
        type: string;
        /**
         * Format: date-time
         * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
         */
        createdAt: string;
      };
      delivery: components['schemas']['Delivery'];
      /** @description the first attempt, once the dispatcher has made it; null when it has not within the wait */
      attempt: components['schemas']['Attempt'] | null;
    };
    Attempt: {
      attempt: number;
      /**
       * Format: date-time
       * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
       */
      startedAt: string;
      durationMs: number;
      statusCode: number | null;
      error: string | null;
      /** @description the first KiB of the answer */
      responseBody: string | null;
      /** @description the headers of the request that went out, as recorded with the attempt ({} when none went out) */
      requestHeaders: {
        [key: string]: string;
      };
      /**
       * @description sent: exactly the headers that went out; rebuilt: an attempt recorded before borderd kept them, its headers made again from its key id and number, without the Standard Webhooks headers and traceparent, which are unknown
       * @enum {string}
       */
      requestHeadersSource: 'sent' | 'rebuilt';
    };
    /** @enum {string} */
    EventType:
      | 'Transaction_Created'
      | 'Transaction_Updated'
      | 'VirtualAccount_Created'
      | 'VirtualAccount_CreationFailed'
      | 'IdentityComplianceCheck_Updated'
      | 'IdentityComplianceCheck_Completed';
    BlockedLine: {
      webhookId: string;
      /** @enum {string} */
      ordering: 'none' | 'resource' | 'webhook';
      /** @description the events' data.id (on a webhook in strict order, the head's: the whole webhook waits) */
      resource: string | null;
      /** @description the pending delivery at the head of the line; skip or cancel it to release the rest */
      headId: string;
      eventId: string;
      attempts: number;
      lastStatus: number | null;
      lastError: string | null;
      /**
       * Format: date-time
       * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
       */
      nextAttemptAt: string;
      /** @description pending deliveries behind the head */
      waiting: number;
    };
    OutboxEvent: {
      id: string;
      type: string;
      /**
       * Format: date-time
       * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
       */
      createdAt: string;
      /** @description where the event went: one entry per webhook it was queued for */
      deliveries: {
        id: string;
        webhookId: string;
        state: components['schemas']['DeliveryState'];
        attempts: number;
        lastStatus: number | null;
      }[];
    };
    Problem: {
      type: string;
      title: string;
      status: number;
      detail: string;
      code: string;
      instance?: string;
      requestId?: string;
      errors?: {
        path?: string;
        message?: string;
      }[];
    };
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  getHealthz: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description alive */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @constant */
            status: 'ok';
          };
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getReadyz: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description ready */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @constant */
            status: 'ready';
          };
        };
      };
      /** @description not ready; `reason` is `storage_full` while the database or its disk is full */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  postV1AuthM2mToken: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          clientId: string;
          clientSecret: string;
          /** @enum {string} */
          piiAccess?: 'all' | 'redacted';
        };
      };
    };
    responses: {
      /** @description token issued */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            accessToken: string;
            /** @constant */
            tokenType: 'Bearer';
            expiresIn: number;
            /** @enum {string} */
            piiAccess: 'all' | 'redacted';
          };
        };
      };
      /** @description unknown client, wrong secret or revoked client (indistinguishable) */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description piiAccess "all" asked by a client limited to "redacted" */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description this address sent auth.failedTokenRequestsPerMinute wrong credentials; retry after Retry-After */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getAdminV1InboundIcas: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description mappings */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: {
              ica: string;
              organizationId: string;
              /** @enum {string} */
              source: 'config' | 'database';
              createdAt: string | null;
            }[];
          };
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  putAdminV1InboundIcasIca: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        ica: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          organizationId: string;
        };
      };
    };
    responses: {
      /** @description the mapping in force and how many waiting notifications were queued */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            mapping: {
              ica: string;
              organizationId: string;
              /** @enum {string} */
              source: 'config' | 'database';
              createdAt: string | null;
            };
            requeued: number;
          };
        };
      };
      /** @description unknown organization */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  deleteAdminV1InboundIcasIca: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        ica: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description removed */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description no database mapping for this ica */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getAdminV1InboundEvents: {
    parameters: {
      query?: {
        state?: components['schemas']['InboundState'];
        eventType?: string;
        limit?: number;
        startingAfter?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description a page of notifications */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: components['schemas']['InboundNotification'][];
            hasMore: boolean;
          };
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  postAdminV1InboundEventsEventIdRetry: {
    parameters: {
      query?: never;
      header?: {
        /** @description A key of your own for this request (a UUID fits). The first request with it runs; its answer is kept for server.idempotencyKeyHours (24 by default) and sent again, with `Idempotent-Replayed: true`, to a repeat with the same key, method, path and body, which does not run again. Keys are per caller (client, or operator). */
        'Idempotency-Key'?: string;
      };
      path: {
        eventId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description requeued */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            requeued: number;
          };
        };
      };
      /** @description a malformed Idempotency-Key (invalid_idempotency_key) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description unknown eventId */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description already decrypted, or its ica maps to no organization; or the first request with this Idempotency-Key is still running (idempotency_key_in_use, with Retry-After) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description this Idempotency-Key was used with another request (idempotency_key_reused) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  postV1WebhooksCardNetwork: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          eventId: string;
          eventType: string;
          eventCreatedDate: string;
          ica: string;
          data:
            | string
            | {
                [key: string]: unknown;
              };
        };
      };
    };
    responses: {
      /** @description stored (or already stored) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @constant */
            received: true;
            eventId: string;
            duplicate: boolean;
          };
        };
      };
      /** @description a field is missing, unknown, too long, not a string, or data is not a JWE */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description the sender is outside the allowlist or lacks the client-certificate header */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description the body is larger than inbound.bodyLimitBytes */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description the body is not JSON, or not in UTF-8 */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description this address has inbound.maxUnmatchedPerSender notifications stored for unmapped icas (unmatched_limit_reached), or, on an endpoint open to any sender, stored at all (sender_limit_reached) */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description reachable from other hosts with no sender check configured: nothing is stored */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getV1Identities: {
    parameters: {
      query?: {
        name?: string;
        email?: string;
        type?: 'Personal' | 'Business';
        startingAfter?: string;
        limit?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description a page of identities */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            hasMore: boolean;
            data: {
              id: string;
              /** @enum {string} */
              type: 'Personal' | 'Business';
              deleted: boolean;
              hasComplianceChecks: boolean;
              data: {
                firstName?: string;
                lastName?: string;
                secondLastName?: string;
                middleName?: string;
                taxId?: string;
                /** @description YYYY-MM-DD; "****-**-**" for piiAccess "redacted" */
                dateOfBirth?: string;
                /** @description an email address; the local part masked ("a****@example.com") for piiAccess "redacted" */
                email?: string;
                /** @description a phone number; all but the last two characters "*" for piiAccess "redacted" */
                phone?: string;
                activity?: string;
                sex?: string;
                address?: {
                  id?: string;
                  street1?: string;
                  street2?: string;
                  city?: string;
                  state?: string;
                  /** @description ISO 3166-1 alpha-2 country code */
                  country?: string;
                  postalCode?: string;
                };
                documents?: {
                  id?: string;
                  /** @description ISO 3166-1 alpha-2 country code */
                  issuingCountry?: string;
                  type?: string;
                  subType?: string;
                  idNumber?: string;
                  issuedDate?: string;
                  expiryDate?: string;
                }[];
                occupationCode?: string;
                employmentStatus?: string;
                sourceOfFunds?: string;
                nameInLocalScript?: string;
                employerName?: string;
                sourceOfWealth?: string;
                accountPurpose?: string;
                accountPurposeOther?: string;
                monthlyAmounts?: string;
                actingAsIntermediary?: boolean;
                /** @description ISO 3166-1 alpha-2 country code */
                citizenship?: string;
                nationalities?: string[];
                /** @description ISO 3166-1 alpha-2 country code */
                placeOfBirthCountry?: string;
                placeOfBirthCity?: string;
                hasForeignTaxRegistration?: boolean;
              };
            }[];
          };
        };
      };
      /** @description the name or email filter with a piiAccess "redacted" token (the detail and errors[].path name the parameter) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getV1AccountsId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the account */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: string;
            provider: string;
            /** @description deprecated; only with accounts.legacyFields */
            type?: ('wallet' | 'institution') | null;
            /** @description deprecated; only with accounts.legacyFields */
            pfi?: string | null;
            /** @description deprecated; only with accounts.legacyFields */
            web3Provider?: string | null;
            name: string;
            assets: {
              id: string;
              asset: string;
              address: string;
            }[];
            fiats: {
              id: string;
              fiat: string;
            }[];
            identityId: string | null;
            /**
             * Format: date-time
             * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
             */
            createdAt: string;
          };
        };
      };
      /** @description unknown id or another organization's */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getV1RefundsConfig: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description RefundConfig or null */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            destination: {
              /** @enum {string} */
              type: 'Address' | 'Source' | 'ProviderBalance';
              addresses?: {
                /** @enum {string} */
                network: 'POLYGON' | 'ETHEREUM' | 'TRON' | 'BASE' | 'OPTIMISM' | 'BITCOIN' | 'SOLANA' | 'CELO';
                address: string;
              }[];
              /** @default true */
              autoRefund: boolean;
              /** @default false */
              autoFiatReturn: boolean;
            };
            /**
             * Format: date-time
             * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
             */
            verifiedAt: string;
            isStaleWarning: boolean;
            isStaleReject: boolean;
          } | null;
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  postV1RefundsConfig: {
    parameters: {
      query?: never;
      header?: {
        /** @description A key of your own for this request (a UUID fits). The first request with it runs; its answer is kept for server.idempotencyKeyHours (24 by default) and sent again, with `Idempotent-Replayed: true`, to a repeat with the same key, method, path and body, which does not run again. Keys are per caller (client, or operator). */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @enum {string} */
          type: 'Address' | 'Source' | 'ProviderBalance';
          addresses?: {
            /** @enum {string} */
            network: 'POLYGON' | 'ETHEREUM' | 'TRON' | 'BASE' | 'OPTIMISM' | 'BITCOIN' | 'SOLANA' | 'CELO';
            address: string;
          }[];
          /** @default true */
          autoRefund?: boolean;
          /** @default false */
          autoFiatReturn?: boolean;
        };
      };
    };
    responses: {
      /** @description the new RefundConfig */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            destination: {
              /** @enum {string} */
              type: 'Address' | 'Source' | 'ProviderBalance';
              addresses?: {
                /** @enum {string} */
                network: 'POLYGON' | 'ETHEREUM' | 'TRON' | 'BASE' | 'OPTIMISM' | 'BITCOIN' | 'SOLANA' | 'CELO';
                address: string;
              }[];
              /** @default true */
              autoRefund: boolean;
              /** @default false */
              autoFiatReturn: boolean;
            };
            /**
             * Format: date-time
             * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
             */
            verifiedAt: string;
            isStaleWarning: boolean;
            isStaleReject: boolean;
          };
        };
      };
      /** @description invalid destination (field named); or a malformed Idempotency-Key (invalid_idempotency_key) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description the first request with this Idempotency-Key is still running (idempotency_key_in_use, with Retry-After) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description this Idempotency-Key was used with another request (idempotency_key_reused) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  postV1RefundsConfigReconfirm: {
    parameters: {
      query?: never;
      header?: {
        /** @description A key of your own for this request (a UUID fits). The first request with it runs; its answer is kept for server.idempotencyKeyHours (24 by default) and sent again, with `Idempotent-Replayed: true`, to a repeat with the same key, method, path and body, which does not run again. Keys are per caller (client, or operator). */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the RefundConfig */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            destination: {
              /** @enum {string} */
              type: 'Address' | 'Source' | 'ProviderBalance';
              addresses?: {
                /** @enum {string} */
                network: 'POLYGON' | 'ETHEREUM' | 'TRON' | 'BASE' | 'OPTIMISM' | 'BITCOIN' | 'SOLANA' | 'CELO';
                address: string;
              }[];
              /** @default true */
              autoRefund: boolean;
              /** @default false */
              autoFiatReturn: boolean;
            };
            /**
             * Format: date-time
             * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
             */
            verifiedAt: string;
            isStaleWarning: boolean;
            isStaleReject: boolean;
          };
        };
      };
      /** @description a malformed Idempotency-Key (invalid_idempotency_key) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description no default is set */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description the first request with this Idempotency-Key is still running (idempotency_key_in_use, with Retry-After) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description this Idempotency-Key was used with another request (idempotency_key_reused) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  putV1OrganizationsIntegrationsProviderA: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          apiKey: string;
          apiSecret: string;
          companyId: string;
        };
      };
    };
    responses: {
      /** @description the provider and its network addresses */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            provider: string;
            integrationNetworkAddresses: {
              network: string;
              address: string;
            }[];
          };
        };
      };
      /** @description invalid body (field named), or the provider refused the credentials */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description the provider could not be reached or answered an error */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  putV1OrganizationsIntegrationsProviderB: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          clientId: string;
          clientSecret: string;
        };
      };
    };
    responses: {
      /** @description the organization PFI integration data */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            clientId: string;
            clientSecret: string;
          };
        };
      };
      /** @description invalid body (field named), or the provider refused the credentials */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description the provider could not be reached or answered an error */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  putV1OrganizationsIntegrationsProviderC: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          apiKey: string;
          apiSecret: string;
        };
      };
    };
    responses: {
      /** @description the organization integration data */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: string;
            provider: string;
            kind: string;
            /**
             * Format: date-time
             * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
             */
            updatedAt: string;
          };
        };
      };
      /** @description invalid body (field named), or the provider refused the credentials */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description the provider could not be reached or answered an error */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getV1OrganizationsNetwork: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the organization network */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description two-letter codes of the countries where deposits are available */
            countries: string[];
            networks: {
              network: string;
              assets: string[];
            }[];
            /** @description every asset available on at least one network, sorted */
            assets: string[];
          };
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getV1DepositsCountries: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description country codes */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': string[];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getV1TransactionsImportBenchmarkSummary: {
    parameters: {
      query?: {
        origin?: 'all' | 'orchestrated' | 'imported';
        status?:
          | 'Submitted'
          | 'Verifying'
          | 'Orchestrating'
          | 'Pending'
          | 'Processing'
          | 'AwaitingDocuments'
          | 'Completed'
          | 'Failed'
          | 'Cancelled'
          | 'Refunded';
        type?: 'Deposit' | 'Withdrawal' | 'Exchange';
        provider?: string;
        fromDate?: string;
        toDate?: string;
        fromUpdatedDate?: string;
        toUpdatedDate?: string;
        benchmark?: 'Competitive' | 'InLine' | 'OffMarket' | 'Calibrating' | 'Syncing' | 'Stale';
        reviewState?: 'AllClear' | 'NeedReview' | 'ReconciliationIssues';
        reconciliation?: 'Matched' | 'Mismatched' | 'Missing' | 'PfiError';
        country?: string;
        currency?: string;
        providerTransactionId?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description ImportBenchmarkSummary */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            hasSignal: boolean;
            sampleSize: number;
            totalVolumeUsd: string;
            pointUsd: string;
            lowUsd: string;
            highUsd: string;
            competitiveCount: number;
            inLineCount: number;
            offMarketCount: number;
            concentrationDisclosure: boolean;
            divergenceDisclosure: boolean;
            nearZero: boolean;
          };
        };
      };
      /** @description invalid filter (field named) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description the organization already has database.summariesPerOrganization summaries running (too_many_summaries) */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getAdminV1Organizations: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the organizations */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: {
              id: string;
              name: string;
            }[];
          };
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  postAdminV1OrganizationsOrgIdIdentities: {
    parameters: {
      query?: never;
      header?: {
        /** @description A key of your own for this request (a UUID fits). The first request with it runs; its answer is kept for server.idempotencyKeyHours (24 by default) and sent again, with `Idempotent-Replayed: true`, to a repeat with the same key, method, path and body, which does not run again. Keys are per caller (client, or operator). */
        'Idempotency-Key'?: string;
      };
      path: {
        orgId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @enum {string} */
          type: 'Personal' | 'Business';
          /** @default false */
          deleted?: boolean;
          /** @default false */
          hasComplianceChecks?: boolean;
          /** @default {} */
          data?: {
            firstName?: string;
            lastName?: string;
            secondLastName?: string;
            middleName?: string;
            taxId?: string;
            dateOfBirth?: string;
            /** Format: email */
            email?: string;
            phone?: string;
            activity?: string;
            sex?: string;
            address?: {
              id?: string;
              street1?: string;
              street2?: string;
              city?: string;
              state?: string;
              /** @description ISO 3166-1 alpha-2 country code */
              country?: string;
              postalCode?: string;
            };
            documents?: {
              id?: string;
              /** @description ISO 3166-1 alpha-2 country code */
              issuingCountry?: string;
              type?: string;
              subType?: string;
              idNumber?: string;
              issuedDate?: string;
              expiryDate?: string;
            }[];
            occupationCode?: string;
            employmentStatus?: string;
            sourceOfFunds?: string;
            nameInLocalScript?: string;
            employerName?: string;
            sourceOfWealth?: string;
            accountPurpose?: string;
            accountPurposeOther?: string;
            monthlyAmounts?: string;
            actingAsIntermediary?: boolean;
            /** @description ISO 3166-1 alpha-2 country code */
            citizenship?: string;
            nationalities?: string[];
            /** @description ISO 3166-1 alpha-2 country code */
            placeOfBirthCountry?: string;
            placeOfBirthCity?: string;
            hasForeignTaxRegistration?: boolean;
          };
        };
      };
    };
    responses: {
      /** @description the identity */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: string;
            /** @enum {string} */
            type: 'Personal' | 'Business';
            deleted: boolean;
            hasComplianceChecks: boolean;
            data: {
              firstName?: string;
              lastName?: string;
              secondLastName?: string;
              middleName?: string;
              taxId?: string;
              /** @description YYYY-MM-DD; "****-**-**" for piiAccess "redacted" */
              dateOfBirth?: string;
              /** @description an email address; the local part masked ("a****@example.com") for piiAccess "redacted" */
              email?: string;
              /** @description a phone number; all but the last two characters "*" for piiAccess "redacted" */
              phone?: string;
              activity?: string;
              sex?: string;
              address?: {
                id?: string;
                street1?: string;
                street2?: string;
                city?: string;
                state?: string;
                /** @description ISO 3166-1 alpha-2 country code */
                country?: string;
                postalCode?: string;
              };
              documents?: {
                id?: string;
                /** @description ISO 3166-1 alpha-2 country code */
                issuingCountry?: string;
                type?: string;
                subType?: string;
                idNumber?: string;
                issuedDate?: string;
                expiryDate?: string;
              }[];
              occupationCode?: string;
              employmentStatus?: string;
              sourceOfFunds?: string;
              nameInLocalScript?: string;
              employerName?: string;
              sourceOfWealth?: string;
              accountPurpose?: string;
              accountPurposeOther?: string;
              monthlyAmounts?: string;
              actingAsIntermediary?: boolean;
              /** @description ISO 3166-1 alpha-2 country code */
              citizenship?: string;
              nationalities?: string[];
              /** @description ISO 3166-1 alpha-2 country code */
              placeOfBirthCountry?: string;
              placeOfBirthCity?: string;
              hasForeignTaxRegistration?: boolean;
            };
          };
        };
      };
      /** @description a malformed Idempotency-Key (invalid_idempotency_key) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description unknown organization */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description the first request with this Idempotency-Key is still running (idempotency_key_in_use, with Retry-After) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description this Idempotency-Key was used with another request (idempotency_key_reused) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  patchAdminV1OrganizationsOrgIdIdentitiesId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        orgId: string;
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          deleted?: boolean;
          hasComplianceChecks?: boolean;
        };
      };
    };
    responses: {
      /** @description the identity */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: string;
            /** @enum {string} */
            type: 'Personal' | 'Business';
            deleted: boolean;
            hasComplianceChecks: boolean;
            data: {
              firstName?: string;
              lastName?: string;
              secondLastName?: string;
              middleName?: string;
              taxId?: string;
              /** @description YYYY-MM-DD; "****-**-**" for piiAccess "redacted" */
              dateOfBirth?: string;
              /** @description an email address; the local part masked ("a****@example.com") for piiAccess "redacted" */
              email?: string;
              /** @description a phone number; all but the last two characters "*" for piiAccess "redacted" */
              phone?: string;
              activity?: string;
              sex?: string;
              address?: {
                id?: string;
                street1?: string;
                street2?: string;
                city?: string;
                state?: string;
                /** @description ISO 3166-1 alpha-2 country code */
                country?: string;
                postalCode?: string;
              };
              documents?: {
                id?: string;
                /** @description ISO 3166-1 alpha-2 country code */
                issuingCountry?: string;
                type?: string;
                subType?: string;
                idNumber?: string;
                issuedDate?: string;
                expiryDate?: string;
              }[];
              occupationCode?: string;
              employmentStatus?: string;
              sourceOfFunds?: string;
              nameInLocalScript?: string;
              employerName?: string;
              sourceOfWealth?: string;
              accountPurpose?: string;
              accountPurposeOther?: string;
              monthlyAmounts?: string;
              actingAsIntermediary?: boolean;
              /** @description ISO 3166-1 alpha-2 country code */
              citizenship?: string;
              nationalities?: string[];
              /** @description ISO 3166-1 alpha-2 country code */
              placeOfBirthCountry?: string;
              placeOfBirthCity?: string;
              hasForeignTaxRegistration?: boolean;
            };
          };
        };
      };
      /** @description unknown organization or identity */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  postAdminV1OrganizationsOrgIdAccounts: {
    parameters: {
      query?: never;
      header?: {
        /** @description A key of your own for this request (a UUID fits). The first request with it runs; its answer is kept for server.idempotencyKeyHours (24 by default) and sent again, with `Idempotent-Replayed: true`, to a repeat with the same key, method, path and body, which does not run again. Keys are per caller (client, or operator). */
        'Idempotency-Key'?: string;
      };
      path: {
        orgId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          provider: string;
          name: string;
          identityId?: string;
          /** @default [] */
          assets?: {
            asset: string;
            address: string;
          }[];
          /** @default [] */
          fiats?: {
            fiat: string;
          }[];
          /** @enum {string} */
          type?: 'wallet' | 'institution';
          pfi?: string;
          web3Provider?: string;
        };
      };
    };
    responses: {
      /** @description the account (deprecated fields as the legacy flag says) */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: string;
            provider: string;
            /** @description deprecated; only with accounts.legacyFields */
            type?: ('wallet' | 'institution') | null;
            /** @description deprecated; only with accounts.legacyFields */
            pfi?: string | null;
            /** @description deprecated; only with accounts.legacyFields */
            web3Provider?: string | null;
            name: string;
            assets: {
              id: string;
              asset: string;
              address: string;
            }[];
            fiats: {
              id: string;
              fiat: string;
            }[];
            identityId: string | null;
            /**
             * Format: date-time
             * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
             */
            createdAt: string;
          };
        };
      };
      /** @description a malformed Idempotency-Key (invalid_idempotency_key) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description unknown organization or identity */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description the first request with this Idempotency-Key is still running (idempotency_key_in_use, with Retry-After) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description this Idempotency-Key was used with another request (idempotency_key_reused) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getAdminV1RefundPlans: {
    parameters: {
      query?: {
        orgId?: string;
        state?: 'Created' | 'Paused' | 'Dispatched' | 'ManualHandling' | 'NoDestination';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description refund plans ordered by id */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: {
              id: string;
              orgId: string;
              transactionId: string;
              /** @enum {string} */
              state: 'Created' | 'Paused' | 'Dispatched' | 'ManualHandling' | 'NoDestination';
              /** @enum {string} */
              kind: 'CryptoRefund' | 'FiatReturnAsCrypto' | 'ManualFiat' | 'None';
              /**
               * @description where the destination came from: the transaction, the organization default, or none
               * @enum {string}
               */
              destinationFrom: 'transaction' | 'default' | 'none';
              destination: {
                /** @enum {string} */
                type: 'Address' | 'Source' | 'ProviderBalance';
                /** @enum {string} */
                network?: 'POLYGON' | 'ETHEREUM' | 'TRON' | 'BASE' | 'OPTIMISM' | 'BITCOIN' | 'SOLANA' | 'CELO';
                address?: string;
              } | null;
              autoRefund: boolean;
              reason: string;
              /**
               * Format: date-time
               * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
               */
              createdAt: string;
              /**
               * Format: date-time
               * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
               */
              updatedAt: string;
              dispatchedAt: string | null;
              /** @description the version of the default the destination came from (destinationFrom "default") */
              defaultVersion: number | null;
            }[];
          };
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  postAdminV1RefundPlansIdDispatch: {
    parameters: {
      query?: never;
      header?: {
        /** @description A key of your own for this request (a UUID fits). The first request with it runs; its answer is kept for server.idempotencyKeyHours (24 by default) and sent again, with `Idempotent-Replayed: true`, to a repeat with the same key, method, path and body, which does not run again. Keys are per caller (client, or operator). */
        'Idempotency-Key'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the dispatched plan */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: string;
            orgId: string;
            transactionId: string;
            /** @enum {string} */
            state: 'Created' | 'Paused' | 'Dispatched' | 'ManualHandling' | 'NoDestination';
            /** @enum {string} */
            kind: 'CryptoRefund' | 'FiatReturnAsCrypto' | 'ManualFiat' | 'None';
            /**
             * @description where the destination came from: the transaction, the organization default, or none
             * @enum {string}
             */
            destinationFrom: 'transaction' | 'default' | 'none';
            destination: {
              /** @enum {string} */
              type: 'Address' | 'Source' | 'ProviderBalance';
              /** @enum {string} */
              network?: 'POLYGON' | 'ETHEREUM' | 'TRON' | 'BASE' | 'OPTIMISM' | 'BITCOIN' | 'SOLANA' | 'CELO';
              address?: string;
            } | null;
            autoRefund: boolean;
            reason: string;
            /**
             * Format: date-time
             * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
             */
            updatedAt: string;
            dispatchedAt: string | null;
            /** @description the version of the default the destination came from (destinationFrom "default") */
            defaultVersion: number | null;
          };
        };
      };
      /** @description a malformed Idempotency-Key (invalid_idempotency_key) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description unknown plan */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description plan is not Created or Paused; or the first request with this Idempotency-Key is still running (idempotency_key_in_use, with Retry-After) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description this Idempotency-Key was used with another request (idempotency_key_reused) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getV1NotificationsEventsStream: {
    parameters: {
      query?: {
        after?: string;
        since?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the stream */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/event-stream': string;
        };
      };
      /** @description Last-Event-ID or after is not an event id, or since is not an ISO 8601 time */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description missing or invalid token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description the client already has eventStream.maxStreamsPerClient streams open on this daemon */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getAdminV1Webhooks: {
    parameters: {
      query?: {
        organizationId?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description webhooks */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: {
              id: string;
              organizationId: string;
              url: string;
              enabled: boolean;
              /** @description why it was disabled: the last failed attempt, a 410, or who disabled it; null while enabled */
              disabledReason: string | null;
              /** @description when it was disabled; null while enabled */
              disabledAt: string | null;
              /**
               * @description the order its deliveries go out in (none, resource, webhook)
               * @enum {string}
               */
              ordering: 'none' | 'resource' | 'webhook';
              /**
               * Format: date-time
               * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
               */
              createdAt: string;
              /**
               * Format: date-time
               * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
               */
              updatedAt: string;
              lastSuccessAt: string | null;
              failuresInARow: number;
              pending: number;
            }[];
          };
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  postAdminV1WebhooksIdDisable: {
    parameters: {
      query?: never;
      header?: {
        /** @description A key of your own for this request (a UUID fits). The first request with it runs; its answer is kept for server.idempotencyKeyHours (24 by default) and sent again, with `Idempotent-Replayed: true`, to a repeat with the same key, method, path and body, which does not run again. Keys are per caller (client, or operator). */
        'Idempotency-Key'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the webhook */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: string;
            organizationId: string;
            url: string;
            enabled: boolean;
            /** @description why it was disabled: the last failed attempt, a 410, or who disabled it; null while enabled */
            disabledReason: string | null;
            /** @description when it was disabled; null while enabled */
            disabledAt: string | null;
            /**
             * @description the order its deliveries go out in (none, resource, webhook)
             * @enum {string}
             */
            ordering: 'none' | 'resource' | 'webhook';
            /**
             * Format: date-time
             * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
             */
            updatedAt: string;
          };
        };
      };
      /** @description a malformed Idempotency-Key (invalid_idempotency_key) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description unknown webhook */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description the first request with this Idempotency-Key is still running (idempotency_key_in_use, with Retry-After) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description this Idempotency-Key was used with another request (idempotency_key_reused) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  postAdminV1WebhooksIdEnable: {
    parameters: {
      query?: never;
      header?: {
        /** @description A key of your own for this request (a UUID fits). The first request with it runs; its answer is kept for server.idempotencyKeyHours (24 by default) and sent again, with `Idempotent-Replayed: true`, to a repeat with the same key, method, path and body, which does not run again. Keys are per caller (client, or operator). */
        'Idempotency-Key'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the webhook */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: string;
            organizationId: string;
            url: string;
            enabled: boolean;
            /** @description why it was disabled: the last failed attempt, a 410, or who disabled it; null while enabled */
            disabledReason: string | null;
            /** @description when it was disabled; null while enabled */
            disabledAt: string | null;
            /**
             * @description the order its deliveries go out in (none, resource, webhook)
             * @enum {string}
             */
            ordering: 'none' | 'resource' | 'webhook';
            /**
             * Format: date-time
             * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
             */
            updatedAt: string;
          };
        };
      };
      /** @description a malformed Idempotency-Key (invalid_idempotency_key) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description unknown webhook */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description the first request with this Idempotency-Key is still running (idempotency_key_in_use, with Retry-After) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description this Idempotency-Key was used with another request (idempotency_key_reused) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getV1NotificationsWebhooksSettingsPublicKey: {
    parameters: {
      query?: {
        keyId?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the current key, or the one asked for */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            keyId: string;
            /** @description SPKI PEM of the RSA public key */
            publicKey: string;
            /** @constant */
            algorithm: 'RSA-SHA256';
            /**
             * Format: date-time
             * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description Only for a replaced key asked for by keyId: when the rotation replaced it
             */
            retiredAt?: string;
          };
        };
      };
      /** @description no key yet (register a webhook first), or keyId unknown or replaced before the window */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  postV1NotificationsWebhooksSettingsPublicKey: {
    parameters: {
      query?: never;
      header?: {
        /** @description A key of your own for this request (a UUID fits). The first request with it runs; its answer is kept for server.idempotencyKeyHours (24 by default) and sent again, with `Idempotent-Replayed: true`, to a repeat with the same key, method, path and body, which does not run again. Keys are per caller (client, or operator). */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the new key */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            keyId: string;
            /** @description SPKI PEM of the RSA public key */
            publicKey: string;
            /** @constant */
            algorithm: 'RSA-SHA256';
            /**
             * Format: date-time
             * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description Only for a replaced key asked for by keyId: when the rotation replaced it
             */
            retiredAt?: string;
          };
        };
      };
      /** @description a malformed Idempotency-Key (invalid_idempotency_key) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description the first request with this Idempotency-Key is still running (idempotency_key_in_use, with Retry-After) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description this Idempotency-Key was used with another request (idempotency_key_reused) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getV1NotificationsWebhooksSettings: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the list */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: string;
            url: string;
            enabled: boolean;
            /** @description The event types sent to this webhook (exact, or a prefix ending in `*`); empty: every type. Events of other types are not queued for it at all. */
            eventTypes: string[];
            /**
             * @description The order its deliveries go out in: none, any order; resource, each resource's events (data.id) in commit order; webhook, every event in commit order
             * @enum {string}
             */
            ordering: 'none' | 'resource' | 'webhook';
            /**
             * Format: date-time
             * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
             */
            updatedAt: string;
            /** @description How deliveries to this webhook are signed: x-signature (RSA-SHA256, the organization key) always; webhook-signature:v1 (Standard Webhooks, HMAC-SHA256 under the webhook secret) once it has a secret; webhook-signature:v1a (Standard Webhooks, Ed25519 with the organization key in its JWKS) when chosen */
            signatureSchemes: ('x-signature' | 'webhook-signature:v1' | 'webhook-signature:v1a')[];
          }[];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  postV1NotificationsWebhooksSettings: {
    parameters: {
      query?: never;
      header?: {
        /** @description A key of your own for this request (a UUID fits). The first request with it runs; its answer is kept for server.idempotencyKeyHours (24 by default) and sent again, with `Idempotent-Replayed: true`, to a repeat with the same key, method, path and body, which does not run again. Keys are per caller (client, or operator). */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          url: string;
          enabled?: boolean;
          /** @description Only events of these types are queued for this webhook (exact names, or a prefix ending in `*`); events of other types are not queued for it at all, not even as skipped. Absent or empty: every type. On PATCH, absent keeps the current filter. */
          eventTypes?: string[];
          /** @description x-signature and webhook-signature:v1 are always sent and must be listed; add webhook-signature:v1a for the Ed25519 signature beside v1 (verified with the organization JWKS, no secret needed). Absent keeps the current choice. */
          signatureSchemes?: ('x-signature' | 'webhook-signature:v1' | 'webhook-signature:v1a')[];
          /**
           * @description none (default): deliveries go out in any order, several at once. resource: the events of one resource (the event's data.id) arrive in commit order; a later one is sent only once the earlier one has a recorded success, and other resources are never held up. webhook: every event in commit order, one at a time. On PATCH, absent keeps the current order; it applies to deliveries already queued.
           * @enum {string}
           */
          ordering?: 'none' | 'resource' | 'webhook';
        };
      };
    };
    responses: {
      /** @description registered, with its secret */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: string;
            url: string;
            enabled: boolean;
            /** @description The event types sent to this webhook (exact, or a prefix ending in `*`); empty: every type. Events of other types are not queued for it at all. */
            eventTypes: string[];
            /**
             * @description The order its deliveries go out in: none, any order; resource, each resource's events (data.id) in commit order; webhook, every event in commit order
             * @enum {string}
             */
            ordering: 'none' | 'resource' | 'webhook';
            /**
             * Format: date-time
             * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
             */
            updatedAt: string;
            /** @description How deliveries to this webhook are signed: x-signature (RSA-SHA256, the organization key) always; webhook-signature:v1 (Standard Webhooks, HMAC-SHA256 under the webhook secret) once it has a secret; webhook-signature:v1a (Standard Webhooks, Ed25519 with the organization key in its JWKS) when chosen */
            signatureSchemes: ('x-signature' | 'webhook-signature:v1' | 'webhook-signature:v1a')[];
            /** @description The Standard Webhooks secret (whsec_…), shown in this answer once; GET …/{id}/secret reads it again */
            secret: string;
          };
        };
      };
      /** @description url refused (names body.url); or a malformed Idempotency-Key (invalid_idempotency_key) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description the organization has webhooks.maxPerOrganization webhooks already (webhook_limit_reached); or the first request with this Idempotency-Key is still running (idempotency_key_in_use, with Retry-After) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description this Idempotency-Key was used with another request (idempotency_key_reused) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getV1NotificationsWebhooksSettingsId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the webhook */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: string;
            url: string;
            enabled: boolean;
            /** @description The event types sent to this webhook (exact, or a prefix ending in `*`); empty: every type. Events of other types are not queued for it at all. */
            eventTypes: string[];
            /**
             * @description The order its deliveries go out in: none, any order; resource, each resource's events (data.id) in commit order; webhook, every event in commit order
             * @enum {string}
             */
            ordering: 'none' | 'resource' | 'webhook';
            /**
             * Format: date-time
             * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
             */
            updatedAt: string;
            /** @description How deliveries to this webhook are signed: x-signature (RSA-SHA256, the organization key) always; webhook-signature:v1 (Standard Webhooks, HMAC-SHA256 under the webhook secret) once it has a secret; webhook-signature:v1a (Standard Webhooks, Ed25519 with the organization key in its JWKS) when chosen */
            signatureSchemes: ('x-signature' | 'webhook-signature:v1' | 'webhook-signature:v1a')[];
          };
        };
      };
      /** @description unknown id or another organization's */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  deleteV1NotificationsWebhooksSettingsId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description deleted */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description unknown id or another organization's */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  patchV1NotificationsWebhooksSettingsId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          url: string;
          enabled?: boolean;
          /** @description Only events of these types are queued for this webhook (exact names, or a prefix ending in `*`); events of other types are not queued for it at all, not even as skipped. Absent or empty: every type. On PATCH, absent keeps the current filter. */
          eventTypes?: string[];
          /** @description x-signature and webhook-signature:v1 are always sent and must be listed; add webhook-signature:v1a for the Ed25519 signature beside v1 (verified with the organization JWKS, no secret needed). Absent keeps the current choice. */
          signatureSchemes?: ('x-signature' | 'webhook-signature:v1' | 'webhook-signature:v1a')[];
          /**
           * @description none (default): deliveries go out in any order, several at once. resource: the events of one resource (the event's data.id) arrive in commit order; a later one is sent only once the earlier one has a recorded success, and other resources are never held up. webhook: every event in commit order, one at a time. On PATCH, absent keeps the current order; it applies to deliveries already queued.
           * @enum {string}
           */
          ordering?: 'none' | 'resource' | 'webhook';
        };
      };
    };
    responses: {
      /** @description updated */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: string;
            url: string;
            enabled: boolean;
            /** @description The event types sent to this webhook (exact, or a prefix ending in `*`); empty: every type. Events of other types are not queued for it at all. */
            eventTypes: string[];
            /**
             * @description The order its deliveries go out in: none, any order; resource, each resource's events (data.id) in commit order; webhook, every event in commit order
             * @enum {string}
             */
            ordering: 'none' | 'resource' | 'webhook';
            /**
             * Format: date-time
             * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
             */
            updatedAt: string;
            /** @description How deliveries to this webhook are signed: x-signature (RSA-SHA256, the organization key) always; webhook-signature:v1 (Standard Webhooks, HMAC-SHA256 under the webhook secret) once it has a secret; webhook-signature:v1a (Standard Webhooks, Ed25519 with the organization key in its JWKS) when chosen */
            signatureSchemes: ('x-signature' | 'webhook-signature:v1' | 'webhook-signature:v1a')[];
          };
        };
      };
      /** @description url refused (names body.url) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description unknown id or another organization's */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getV1NotificationsWebhooksSettingsIdSecret: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the current secret */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description The current secret, whsec_ + base64 of its key bytes: verify webhook-signature with it */
            secret: string;
            /**
             * Format: date-time
             * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
             */
            createdAt: string;
            /** @description While a rotation window is open: when the replaced secret stops signing beside this one (its v1 signature is sent too); else null */
            previousExpiresAt: string | null;
          };
        };
      };
      /** @description unknown id or another organization's, or a webhook without a secret yet */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  postV1NotificationsWebhooksSettingsIdSecretRotate: {
    parameters: {
      query?: never;
      header?: {
        /** @description A key of your own for this request (a UUID fits). The first request with it runs; its answer is kept for server.idempotencyKeyHours (24 by default) and sent again, with `Idempotent-Replayed: true`, to a repeat with the same key, method, path and body, which does not run again. Keys are per caller (client, or operator). */
        'Idempotency-Key'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the new secret */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description The current secret, whsec_ + base64 of its key bytes: verify webhook-signature with it */
            secret: string;
            /**
             * Format: date-time
             * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
             */
            createdAt: string;
            /** @description While a rotation window is open: when the replaced secret stops signing beside this one (its v1 signature is sent too); else null */
            previousExpiresAt: string | null;
          };
        };
      };
      /** @description a malformed Idempotency-Key (invalid_idempotency_key) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description unknown id or another organization's */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description the first request with this Idempotency-Key is still running (idempotency_key_in_use, with Retry-After) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description this Idempotency-Key was used with another request (idempotency_key_reused) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getV1OrganizationsIdJwksJson: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the key set (empty before the organization has a key) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            keys: {
              /** @enum {string} */
              kty: 'RSA' | 'OKP';
              /** @description The key id: for RSA, the x-signature-key-id of the deliveries it signs */
              kid: string;
              /** @constant */
              use: 'sig';
              /**
               * @description RS256 verifies x-signature; EdDSA (Ed25519) verifies the v1a signatures of webhook-signature
               * @enum {string}
               */
              alg: 'RS256' | 'EdDSA';
              n?: string;
              e?: string;
              /** @constant */
              crv?: 'Ed25519';
              x?: string;
            }[];
          };
        };
      };
      /** @description unknown organization id */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getV1NotificationsWebhooksHealth: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the webhooks */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: {
              webhook: {
                id: string;
                url: string;
                enabled: boolean;
                /** @description The event types sent to this webhook (exact, or a prefix ending in `*`); empty: every type. Events of other types are not queued for it at all. */
                eventTypes: string[];
                /**
                 * @description The order its deliveries go out in: none, any order; resource, each resource's events (data.id) in commit order; webhook, every event in commit order
                 * @enum {string}
                 */
                ordering: 'none' | 'resource' | 'webhook';
                /**
                 * Format: date-time
                 * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
                 */
                createdAt: string;
                /**
                 * Format: date-time
                 * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
                 */
                updatedAt: string;
              };
              health: components['schemas']['WebhookHealth'];
            }[];
          };
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getV1NotificationsWebhooksSettingsIdHealth: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description its health */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookHealth'];
        };
      };
      /** @description unknown webhook, or another organization's */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getV1NotificationsWebhooksSettingsIdDeliveries: {
    parameters: {
      query?: {
        state?: components['schemas']['DeliveryState'];
        eventType?:
          | 'Transaction_Created'
          | 'Transaction_Updated'
          | 'VirtualAccount_Created'
          | 'VirtualAccount_CreationFailed'
          | 'IdentityComplianceCheck_Updated'
          | 'IdentityComplianceCheck_Completed'
          | 'test.Transaction_Created'
          | 'test.Transaction_Updated'
          | 'test.VirtualAccount_Created'
          | 'test.VirtualAccount_CreationFailed'
          | 'test.IdentityComplianceCheck_Updated'
          | 'test.IdentityComplianceCheck_Completed';
        since?: string;
        until?: string;
        limit?: number;
        startingAfter?: string;
      };
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description a page of deliveries */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: components['schemas']['Delivery'][];
            hasMore: boolean;
          };
        };
      };
      /** @description a bad filter or a cursor that is not a delivery of this webhook (invalid_cursor) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description unknown webhook, or another organization's */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  postV1NotificationsWebhooksSettingsIdReplay: {
    parameters: {
      query?: never;
      header?: {
        /** @description A key of your own for this request (a UUID fits). The first request with it runs; its answer is kept for server.idempotencyKeyHours (24 by default) and sent again, with `Idempotent-Replayed: true`, to a repeat with the same key, method, path and body, which does not run again. Keys are per caller (client, or operator). */
        'Idempotency-Key'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          since?: string;
          until?: string;
          eventIds?: string[];
        };
      };
    };
    responses: {
      /** @description how many were queued */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ReplayResult'];
        };
      };
      /** @description neither or both of eventIds and since, unknown event ids, a range over the bound; or a malformed Idempotency-Key (invalid_idempotency_key) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description unknown webhook, or another organization's */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description the webhook is disabled (webhook_disabled); or the first request with this Idempotency-Key is still running (idempotency_key_in_use, with Retry-After) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description this Idempotency-Key was used with another request (idempotency_key_reused) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description a replay to this webhook is in progress (replay_in_progress), or the organization queued webhooks.replayEventsPerHour events by replay within the hour (replay_budget_exhausted); retry after Retry-After */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  postV1NotificationsWebhooksSettingsIdTest: {
    parameters: {
      query?: never;
      header?: {
        /** @description A key of your own for this request (a UUID fits). The first request with it runs; its answer is kept for server.idempotencyKeyHours (24 by default) and sent again, with `Idempotent-Replayed: true`, to a repeat with the same key, method, path and body, which does not run again. Keys are per caller (client, or operator). */
        'Idempotency-Key'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          type: components['schemas']['EventType'];
          /** @description sent as `data.testData` of the event, at most webhooks.testEventMaxDataBytes as JSON; the identity fields (`data.id`, the times) are borderd's own */
          data?: {
            [key: string]: unknown;
          };
        };
      };
    };
    responses: {
      /** @description sent */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TestEventResult'];
        };
      };
      /** @description queued; not attempted yet */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description a malformed Idempotency-Key (invalid_idempotency_key) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description unknown webhook, or another organization's */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description the webhook is disabled (webhook_disabled); or the first request with this Idempotency-Key is still running (idempotency_key_in_use, with Retry-After) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description data is over webhooks.testEventMaxDataBytes as JSON (test_event_too_large) */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description this Idempotency-Key was used with another request (idempotency_key_reused) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description the organization sent webhooks.testEventsPerMinute test events within the minute (test_event_budget_exhausted); retry after Retry-After */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getV1NotificationsDeliveriesId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the delivery */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            delivery: components['schemas']['Delivery'];
            attempts: components['schemas']['Attempt'][];
          };
        };
      };
      /** @description unknown delivery, or another organization's */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  postV1NotificationsDeliveriesIdRetry: {
    parameters: {
      query?: never;
      header?: {
        /** @description A key of your own for this request (a UUID fits). The first request with it runs; its answer is kept for server.idempotencyKeyHours (24 by default) and sent again, with `Idempotent-Replayed: true`, to a repeat with the same key, method, path and body, which does not run again. Keys are per caller (client, or operator). */
        'Idempotency-Key'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description queued */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Delivery'];
        };
      };
      /** @description a malformed Idempotency-Key (invalid_idempotency_key) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description unknown delivery, or another organization's */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description its attempt is in flight (delivery_in_flight), or its webhook is disabled or deleted; or the first request with this Idempotency-Key is still running (idempotency_key_in_use, with Retry-After) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description this Idempotency-Key was used with another request (idempotency_key_reused) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getV1NotificationsWebhooksSettingsIdBlocked: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the blocked lines, oldest head first */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: components['schemas']['BlockedLine'][];
          };
        };
      };
      /** @description unknown webhook, or another organization's */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  postV1NotificationsDeliveriesIdSkip: {
    parameters: {
      query?: never;
      header?: {
        /** @description A key of your own for this request (a UUID fits). The first request with it runs; its answer is kept for server.idempotencyKeyHours (24 by default) and sent again, with `Idempotent-Replayed: true`, to a repeat with the same key, method, path and body, which does not run again. Keys are per caller (client, or operator). */
        'Idempotency-Key'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description skipped */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Delivery'];
        };
      };
      /** @description a malformed Idempotency-Key (invalid_idempotency_key) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description unknown delivery, or another organization's */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description not pending (delivery_not_pending), or its attempt is in flight (delivery_in_flight); or the first request with this Idempotency-Key is still running (idempotency_key_in_use, with Retry-After) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description this Idempotency-Key was used with another request (idempotency_key_reused) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  postV1NotificationsDeliveriesIdCancel: {
    parameters: {
      query?: never;
      header?: {
        /** @description A key of your own for this request (a UUID fits). The first request with it runs; its answer is kept for server.idempotencyKeyHours (24 by default) and sent again, with `Idempotent-Replayed: true`, to a repeat with the same key, method, path and body, which does not run again. Keys are per caller (client, or operator). */
        'Idempotency-Key'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description cancelled */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Delivery'];
        };
      };
      /** @description a malformed Idempotency-Key (invalid_idempotency_key) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description unknown delivery, or another organization's */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description not pending (delivery_not_pending), or its attempt is in flight (delivery_in_flight); or the first request with this Idempotency-Key is still running (idempotency_key_in_use, with Retry-After) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description this Idempotency-Key was used with another request (idempotency_key_reused) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getV1NotificationsEvents: {
    parameters: {
      query?: {
        type?:
          | 'Transaction_Created'
          | 'Transaction_Updated'
          | 'VirtualAccount_Created'
          | 'VirtualAccount_CreationFailed'
          | 'IdentityComplianceCheck_Updated'
          | 'IdentityComplianceCheck_Completed'
          | 'test.Transaction_Created'
          | 'test.Transaction_Updated'
          | 'test.VirtualAccount_Created'
          | 'test.VirtualAccount_CreationFailed'
          | 'test.IdentityComplianceCheck_Updated'
          | 'test.IdentityComplianceCheck_Completed';
        since?: string;
        until?: string;
        limit?: number;
        startingAfter?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description a page of events */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: components['schemas']['OutboxEvent'][];
            hasMore: boolean;
          };
        };
      };
      /** @description a bad filter or a cursor that is not an event of the organization (invalid_cursor) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getAdminV1OrganizationsOrgIdNotificationsWebhooksHealth: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        orgId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the webhooks */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: {
              webhook: {
                id: string;
                url: string;
                enabled: boolean;
                /** @description The event types sent to this webhook (exact, or a prefix ending in `*`); empty: every type. Events of other types are not queued for it at all. */
                eventTypes: string[];
                /**
                 * @description The order its deliveries go out in: none, any order; resource, each resource's events (data.id) in commit order; webhook, every event in commit order
                 * @enum {string}
                 */
                ordering: 'none' | 'resource' | 'webhook';
                /**
                 * Format: date-time
                 * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
                 */
                createdAt: string;
                /**
                 * Format: date-time
                 * @description ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z
                 */
                updatedAt: string;
              };
              health: components['schemas']['WebhookHealth'];
            }[];
          };
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getAdminV1OrganizationsOrgIdNotificationsWebhooksSettingsIdHealth: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        orgId: string;
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description its health */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookHealth'];
        };
      };
      /** @description unknown webhook, or another organization's */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getAdminV1OrganizationsOrgIdNotificationsWebhooksSettingsIdDeliveries: {
    parameters: {
      query?: {
        state?: components['schemas']['DeliveryState'];
        eventType?:
          | 'Transaction_Created'
          | 'Transaction_Updated'
          | 'VirtualAccount_Created'
          | 'VirtualAccount_CreationFailed'
          | 'IdentityComplianceCheck_Updated'
          | 'IdentityComplianceCheck_Completed'
          | 'test.Transaction_Created'
          | 'test.Transaction_Updated'
          | 'test.VirtualAccount_Created'
          | 'test.VirtualAccount_CreationFailed'
          | 'test.IdentityComplianceCheck_Updated'
          | 'test.IdentityComplianceCheck_Completed';
        since?: string;
        until?: string;
        limit?: number;
        startingAfter?: string;
      };
      header?: never;
      path: {
        orgId: string;
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description a page of deliveries */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: components['schemas']['Delivery'][];
            hasMore: boolean;
          };
        };
      };
      /** @description a bad filter or a cursor that is not a delivery of this webhook (invalid_cursor) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description unknown webhook, or another organization's */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  postAdminV1OrganizationsOrgIdNotificationsWebhooksSettingsIdReplay: {
    parameters: {
      query?: never;
      header?: {
        /** @description A key of your own for this request (a UUID fits). The first request with it runs; its answer is kept for server.idempotencyKeyHours (24 by default) and sent again, with `Idempotent-Replayed: true`, to a repeat with the same key, method, path and body, which does not run again. Keys are per caller (client, or operator). */
        'Idempotency-Key'?: string;
      };
      path: {
        orgId: string;
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          since?: string;
          until?: string;
          eventIds?: string[];
        };
      };
    };
    responses: {
      /** @description how many were queued */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ReplayResult'];
        };
      };
      /** @description neither or both of eventIds and since, unknown event ids, a range over the bound; or a malformed Idempotency-Key (invalid_idempotency_key) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description unknown webhook, or another organization's */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description the webhook is disabled (webhook_disabled); or the first request with this Idempotency-Key is still running (idempotency_key_in_use, with Retry-After) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description this Idempotency-Key was used with another request (idempotency_key_reused) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  postAdminV1OrganizationsOrgIdNotificationsWebhooksSettingsIdTest: {
    parameters: {
      query?: never;
      header?: {
        /** @description A key of your own for this request (a UUID fits). The first request with it runs; its answer is kept for server.idempotencyKeyHours (24 by default) and sent again, with `Idempotent-Replayed: true`, to a repeat with the same key, method, path and body, which does not run again. Keys are per caller (client, or operator). */
        'Idempotency-Key'?: string;
      };
      path: {
        orgId: string;
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          type: components['schemas']['EventType'];
          /** @description sent as `data.testData` of the event, at most webhooks.testEventMaxDataBytes as JSON; the identity fields (`data.id`, the times) are borderd's own */
          data?: {
            [key: string]: unknown;
          };
        };
      };
    };
    responses: {
      /** @description sent */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TestEventResult'];
        };
      };
      /** @description queued; not attempted yet */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description a malformed Idempotency-Key (invalid_idempotency_key) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description unknown webhook, or another organization's */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description the webhook is disabled (webhook_disabled); or the first request with this Idempotency-Key is still running (idempotency_key_in_use, with Retry-After) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description data is over webhooks.testEventMaxDataBytes as JSON (test_event_too_large) */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description this Idempotency-Key was used with another request (idempotency_key_reused) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getAdminV1OrganizationsOrgIdNotificationsDeliveriesId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        orgId: string;
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the delivery */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            delivery: components['schemas']['Delivery'];
            attempts: components['schemas']['Attempt'][];
          };
        };
      };
      /** @description unknown delivery, or another organization's */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  postAdminV1OrganizationsOrgIdNotificationsDeliveriesIdRetry: {
    parameters: {
      query?: never;
      header?: {
        /** @description A key of your own for this request (a UUID fits). The first request with it runs; its answer is kept for server.idempotencyKeyHours (24 by default) and sent again, with `Idempotent-Replayed: true`, to a repeat with the same key, method, path and body, which does not run again. Keys are per caller (client, or operator). */
        'Idempotency-Key'?: string;
      };
      path: {
        orgId: string;
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description queued */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Delivery'];
        };
      };
      /** @description a malformed Idempotency-Key (invalid_idempotency_key) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description unknown delivery, or another organization's */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description its attempt is in flight (delivery_in_flight), or its webhook is disabled or deleted; or the first request with this Idempotency-Key is still running (idempotency_key_in_use, with Retry-After) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description this Idempotency-Key was used with another request (idempotency_key_reused) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getAdminV1OrganizationsOrgIdNotificationsWebhooksSettingsIdBlocked: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        orgId: string;
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the blocked lines, oldest head first */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: components['schemas']['BlockedLine'][];
          };
        };
      };
      /** @description unknown webhook, or another organization's */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  postAdminV1OrganizationsOrgIdNotificationsDeliveriesIdSkip: {
    parameters: {
      query?: never;
      header?: {
        /** @description A key of your own for this request (a UUID fits). The first request with it runs; its answer is kept for server.idempotencyKeyHours (24 by default) and sent again, with `Idempotent-Replayed: true`, to a repeat with the same key, method, path and body, which does not run again. Keys are per caller (client, or operator). */
        'Idempotency-Key'?: string;
      };
      path: {
        orgId: string;
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description skipped */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Delivery'];
        };
      };
      /** @description a malformed Idempotency-Key (invalid_idempotency_key) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description unknown delivery, or another organization's */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description not pending (delivery_not_pending), or its attempt is in flight (delivery_in_flight); or the first request with this Idempotency-Key is still running (idempotency_key_in_use, with Retry-After) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description this Idempotency-Key was used with another request (idempotency_key_reused) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  postAdminV1OrganizationsOrgIdNotificationsDeliveriesIdCancel: {
    parameters: {
      query?: never;
      header?: {
        /** @description A key of your own for this request (a UUID fits). The first request with it runs; its answer is kept for server.idempotencyKeyHours (24 by default) and sent again, with `Idempotent-Replayed: true`, to a repeat with the same key, method, path and body, which does not run again. Keys are per caller (client, or operator). */
        'Idempotency-Key'?: string;
      };
      path: {
        orgId: string;
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description cancelled */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Delivery'];
        };
      };
      /** @description a malformed Idempotency-Key (invalid_idempotency_key) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description unknown delivery, or another organization's */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description not pending (delivery_not_pending), or its attempt is in flight (delivery_in_flight); or the first request with this Idempotency-Key is still running (idempotency_key_in_use, with Retry-After) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description this Idempotency-Key was used with another request (idempotency_key_reused) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getAdminV1OrganizationsOrgIdNotificationsEvents: {
    parameters: {
      query?: {
        type?:
          | 'Transaction_Created'
          | 'Transaction_Updated'
          | 'VirtualAccount_Created'
          | 'VirtualAccount_CreationFailed'
          | 'IdentityComplianceCheck_Updated'
          | 'IdentityComplianceCheck_Completed'
          | 'test.Transaction_Created'
          | 'test.Transaction_Updated'
          | 'test.VirtualAccount_Created'
          | 'test.VirtualAccount_CreationFailed'
          | 'test.IdentityComplianceCheck_Updated'
          | 'test.IdentityComplianceCheck_Completed';
        since?: string;
        until?: string;
        limit?: number;
        startingAfter?: string;
      };
      header?: never;
      path: {
        orgId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description a page of events */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: components['schemas']['OutboxEvent'][];
            hasMore: boolean;
          };
        };
      };
      /** @description a bad filter or a cursor that is not an event of the organization (invalid_cursor) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  postAdminV1Transactions: {
    parameters: {
      query?: never;
      header?: {
        /** @description A key of your own for this request (a UUID fits). The first request with it runs; its answer is kept for server.idempotencyKeyHours (24 by default) and sent again, with `Idempotent-Replayed: true`, to a repeat with the same key, method, path and body, which does not run again. Keys are per caller (client, or operator). */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          orgId: string;
          /** @enum {string} */
          type: 'Deposit' | 'Withdrawal' | 'Transfer' | 'TransferToExternalWallet' | 'Swap' | 'Approval';
          amount?: string;
          currency?: string;
          /** @enum {string} */
          network?: 'POLYGON' | 'ETHEREUM' | 'TRON' | 'BASE' | 'OPTIMISM' | 'BITCOIN' | 'SOLANA' | 'CELO';
          source?: {
            [key: string]: unknown;
          };
          destination?: {
            [key: string]: unknown;
          };
          refundDestination?: {
            [key: string]: unknown;
          };
          identityId?: string;
          accountId?: string;
        };
      };
    };
    responses: {
      /** @description created */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            [key: string]: unknown;
          };
        };
      };
      /** @description a malformed Idempotency-Key (invalid_idempotency_key) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description unknown organization */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description the first request with this Idempotency-Key is still running (idempotency_key_in_use, with Retry-After) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description this Idempotency-Key was used with another request (idempotency_key_reused) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  getAdminV1TransactionsId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the transaction */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            [key: string]: unknown;
          };
        };
      };
      /** @description unknown id */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  postAdminV1TransactionsIdStatus: {
    parameters: {
      query?: never;
      header?: {
        /** @description A key of your own for this request (a UUID fits). The first request with it runs; its answer is kept for server.idempotencyKeyHours (24 by default) and sent again, with `Idempotent-Replayed: true`, to a repeat with the same key, method, path and body, which does not run again. Keys are per caller (client, or operator). */
        'Idempotency-Key'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @enum {string} */
          status:
            | 'Submitted'
            | 'Verifying'
            | 'Orchestrating'
            | 'Pending'
            | 'Processing'
            | 'AwaitingDocuments'
            | 'Completed'
            | 'Failed'
            | 'Cancelled'
            | 'Refunded';
          failureReason?: string;
        };
      };
    };
    responses: {
      /** @description moved */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            [key: string]: unknown;
          };
        };
      };
      /** @description a malformed Idempotency-Key (invalid_idempotency_key) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description unknown id */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description illegal move; or the first request with this Idempotency-Key is still running (idempotency_key_in_use, with Retry-After) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description this Idempotency-Key was used with another request (idempotency_key_reused) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  postAdminV1ComplianceChecks: {
    parameters: {
      query?: never;
      header?: {
        /** @description A key of your own for this request (a UUID fits). The first request with it runs; its answer is kept for server.idempotencyKeyHours (24 by default) and sent again, with `Idempotent-Replayed: true`, to a repeat with the same key, method, path and body, which does not run again. Keys are per caller (client, or operator). */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          orgId: string;
          identityId: string;
        };
      };
    };
    responses: {
      /** @description created */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            [key: string]: unknown;
          };
        };
      };
      /** @description a malformed Idempotency-Key (invalid_idempotency_key) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description the first request with this Idempotency-Key is still running (idempotency_key_in_use, with Retry-After) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description this Idempotency-Key was used with another request (idempotency_key_reused) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  postAdminV1ComplianceChecksIdStatus: {
    parameters: {
      query?: never;
      header?: {
        /** @description A key of your own for this request (a UUID fits). The first request with it runs; its answer is kept for server.idempotencyKeyHours (24 by default) and sent again, with `Idempotent-Replayed: true`, to a repeat with the same key, method, path and body, which does not run again. Keys are per caller (client, or operator). */
        'Idempotency-Key'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @enum {string} */
          status: 'Pending' | 'InProgress' | 'Completed';
          /** @enum {string} */
          result?: 'Approved' | 'Rejected';
          reason?: string;
        };
      };
    };
    responses: {
      /** @description moved */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            [key: string]: unknown;
          };
        };
      };
      /** @description a malformed Idempotency-Key (invalid_idempotency_key) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description already Completed; or the first request with this Idempotency-Key is still running (idempotency_key_in_use, with Retry-After) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description this Idempotency-Key was used with another request (idempotency_key_reused) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  postAdminV1VirtualAccounts: {
    parameters: {
      query?: never;
      header?: {
        /** @description A key of your own for this request (a UUID fits). The first request with it runs; its answer is kept for server.idempotencyKeyHours (24 by default) and sent again, with `Idempotent-Replayed: true`, to a repeat with the same key, method, path and body, which does not run again. Keys are per caller (client, or operator). */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          orgId: string;
          /** @enum {string} */
          status: 'Created' | 'CreationFailed';
          identityId?: string;
          accountId?: string;
          currency?: string;
          failureReason?: string;
        };
      };
    };
    responses: {
      /** @description recorded */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            [key: string]: unknown;
          };
        };
      };
      /** @description a malformed Idempotency-Key (invalid_idempotency_key) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description the first request with this Idempotency-Key is still running (idempotency_key_in_use, with Retry-After) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description this Idempotency-Key was used with another request (idempotency_key_reused) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  postAdminV1Events: {
    parameters: {
      query?: never;
      header?: {
        /** @description A key of your own for this request (a UUID fits). The first request with it runs; its answer is kept for server.idempotencyKeyHours (24 by default) and sent again, with `Idempotent-Replayed: true`, to a repeat with the same key, method, path and body, which does not run again. Keys are per caller (client, or operator). */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          orgId: string;
          /** @enum {string} */
          type:
            | 'Transaction_Created'
            | 'Transaction_Updated'
            | 'VirtualAccount_Created'
            | 'VirtualAccount_CreationFailed'
            | 'IdentityComplianceCheck_Updated'
            | 'IdentityComplianceCheck_Completed';
          data?: {
            [key: string]: unknown;
          };
        };
      };
    };
    responses: {
      /** @description the event as it is sent */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            [key: string]: unknown;
          };
        };
      };
      /** @description a malformed Idempotency-Key (invalid_idempotency_key) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description the first request with this Idempotency-Key is still running (idempotency_key_in_use, with Retry-After) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description this Idempotency-Key was used with another request (idempotency_key_reused) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
      /** @description Problem details (RFC 9457) */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/problem+json': components['schemas']['Problem'];
        };
      };
    };
  };
  eventDelivery: {
    parameters: {
      query?: never;
      header: {
        /** @description application/json */
        'content-type': 'application/json';
        /** @description borderd/<version> */
        'user-agent': string;
        /** @description base64 of RSASSA-PKCS1-v1_5 with SHA-256 over the exact body bytes, by the organization's key (the API spec's contract) */
        'x-signature': string;
        /** @description id (wsk_…) of the key that made x-signature: GET …/settings/public-key?keyId= fetches it */
        'x-signature-key-id': string;
        /** @description the event id (the body is authoritative) */
        'x-event-id': string;
        /** @description the event type */
        'x-event-type': string;
        /** @description 1 for the first attempt of a cycle, then 2, 3… */
        'x-delivery-attempt': string;
        /** @description Standard Webhooks: the event id, the same on every retry and replay. Absent for a webhook without a secret */
        'webhook-id'?: string;
        /** @description Standard Webhooks: this attempt's send time in whole unix seconds, signed; receivers refuse it beyond their tolerance (replays) */
        'webhook-timestamp'?: string;
        /** @description Standard Webhooks: space-separated `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` under the webhook secret; two entries during a rotation window; then, for a webhook that chose webhook-signature:v1a, `v1a,<base64 Ed25519 signature of the same bytes>` (the organization key in its JWKS) */
        'webhook-signature'?: string;
        /** @description W3C trace context of the send, while tracing is on: a receiver’s spans continue the event’s trace */
        traceparent?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          id: string;
          type: string;
          organizationId: string;
          /** Format: date-time */
          createdAt: string;
          timestamp: number;
          data: Record<string, never>;
        };
      };
    };
    responses: {
      /** @description delivered (any 2xx); 410 disables the webhook at once; anything else is retried */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
}

/** Every event type, for the filters and the test event form. */
export const EVENT_TYPES = [
  'Transaction_Created',
  'Transaction_Updated',
  'VirtualAccount_Created',
  'VirtualAccount_CreationFailed',
  'IdentityComplianceCheck_Updated',
  'IdentityComplianceCheck_Completed',
] as const satisfies readonly components['schemas']['EventType'][];

/** Every state of a delivery, for the deliveries' filter. */
export const DELIVERY_STATES = [
  'pending',
  'delivered',
  'failed',
  'skipped',
  'cancelled',
] as const satisfies readonly components['schemas']['DeliveryState'][];

/** Every state of a card-network notification, for the operator's filter. */
export const INBOUND_STATES = [
  'received',
  'decrypted',
  'failed',
  'unmatched',
] as const satisfies readonly components['schemas']['InboundState'][];
