-- The pending rows of a webhook that have been tried and are waiting for a retry, newest attempt
-- last: how a process that starts learns whether an endpoint had stopped answering (the last
-- attempt got no answer) without scanning and sorting the webhook's whole backlog. Partial, so
-- only failing deliveries maintain it; a row delivered at its first attempt never enters it.
CREATE INDEX deliveries_retrying ON deliveries(webhook_id, updated_at) WHERE state = 'pending' AND attempts > 0;
