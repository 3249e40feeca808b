-- Push to devices that are not looking: subscriptions, the delivery queue, and the server's keys.

-- A device's or browser's subscription: a Web Push endpoint with the browser's keys, or an FCM
-- or APNs token. An address belongs to one account at a time: subscribing it again, from any
-- account, keeps its row (and moves it). Never returned by the API, never logged.
CREATE TABLE push_subscriptions (
    id          uuid        PRIMARY KEY,
    account_id  uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    kind        text        NOT NULL CHECK (kind IN ('webpush', 'fcm', 'apns')),
    address     text        NOT NULL CHECK (length(address) BETWEEN 1 AND 4096),
    p256dh      bytea       CHECK (length(p256dh) = 65),
    auth        bytea       CHECK (length(auth) = 16),
    created_at  timestamptz NOT NULL,
    UNIQUE (kind, address),
    CHECK ((kind = 'webpush') = (p256dh IS NOT NULL AND auth IS NOT NULL))
);
CREATE INDEX push_subscriptions_account_idx ON push_subscriptions (account_id, created_at, id);

-- One row per notification and subscription still to be sent. Written by the notifications'
-- trigger, in the transaction that makes the notification (nothing is lost, and the request
-- that caused it does no more than this insert). The delivery service claims due rows by moving
-- `due_at` a lease ahead and counting the attempt (`FOR UPDATE SKIP LOCKED`: several instances
-- share the queue); a row whose claimer died is due again when the lease ends. Sent or given
-- up: deleted. A notification that goes away before it is sent (a like withdrawn, a card
-- deleted) takes its rows with it.
CREATE TABLE push_deliveries (
    id               bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    notification_id  uuid        NOT NULL REFERENCES notifications (id) ON DELETE CASCADE,
    subscription_id  uuid        NOT NULL REFERENCES push_subscriptions (id) ON DELETE CASCADE,
    queued_at        timestamptz NOT NULL DEFAULT now(),
    due_at           timestamptz NOT NULL DEFAULT now(),
    attempts         integer     NOT NULL DEFAULT 0,
    UNIQUE (notification_id, subscription_id)
);
CREATE INDEX push_deliveries_due_idx ON push_deliveries (due_at);
CREATE INDEX push_deliveries_subscription_idx ON push_deliveries (subscription_id);

-- Keys the server makes for itself once and shares among its instances: the VAPID private key
-- (`vapid`, a P-256 scalar) unless the operator gives one (`SOOM_VAPID_PRIVATE_KEY`).
CREATE TABLE server_keys (
    name        text        PRIMARY KEY,
    secret      bytea       NOT NULL,
    created_at  timestamptz NOT NULL
);

-- 0026's trigger function, now also queueing a delivery for each subscription of the recipient.
-- A recipient without subscriptions costs one probe of push_subscriptions_account_idx.
CREATE OR REPLACE FUNCTION notifications_told() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('soom_notifications', NEW.recipient_id::text || ':' || NEW.id::text);
    INSERT INTO push_deliveries (notification_id, subscription_id)
    SELECT NEW.id, s.id FROM push_subscriptions s WHERE s.account_id = NEW.recipient_id;
    RETURN NULL;
END
$$;

-- Saves a subscription under its account's row lock (so the count of five is exact under any
-- concurrency): the account's own row for the same address is kept, with its keys renewed
-- ('existing'); else, below the limit, a new row ('created'), replacing another account's row for
-- that address with its queued deliveries (the device belongs to this account now, and must not
-- receive the other's notifications); at the limit, nothing ('limit'); no account: 'no_account'.
CREATE FUNCTION save_push_subscription(p_account uuid, p_id uuid, p_kind text, p_address text, p_p256dh bytea, p_auth bytea,
                                       p_at timestamptz, p_limit integer,
                                       OUT outcome text, OUT subscription_id uuid, OUT subscribed_at timestamptz)
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM accounts WHERE id = p_account FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        outcome := 'no_account';
        RETURN;
    END IF;
    SELECT id, created_at INTO subscription_id, subscribed_at FROM push_subscriptions
    WHERE kind = p_kind AND address = p_address AND account_id = p_account;
    IF FOUND THEN
        UPDATE push_subscriptions SET p256dh = p_p256dh, auth = p_auth WHERE id = subscription_id;
        outcome := 'existing';
        RETURN;
    END IF;
    IF (SELECT count(*) FROM push_subscriptions WHERE account_id = p_account) >= p_limit THEN
        outcome := 'limit';
        RETURN;
    END IF;
    -- Another account's row for the address goes; a third subscribing it at the same moment may
    -- insert first, so try again (each round deletes what the other inserted).
    FOR attempt IN 1..5 LOOP
        DELETE FROM push_subscriptions WHERE kind = p_kind AND address = p_address;
        INSERT INTO push_subscriptions (id, account_id, kind, address, p256dh, auth, created_at)
        VALUES (p_id, p_account, p_kind, p_address, p_p256dh, p_auth, p_at)
        ON CONFLICT (kind, address) DO NOTHING;
        IF FOUND THEN
            subscription_id := p_id;
            subscribed_at := p_at;
            outcome := 'created';
            RETURN;
        END IF;
    END LOOP;
    RAISE EXCEPTION 'push subscription address contended' USING ERRCODE = '40001';
END
$$;
