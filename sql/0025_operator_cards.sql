-- Operator cards: cards the built-in operator account posts (`soom admin card post`), shown with
-- `isOperator: true` on their author, and optionally pinned to the top of the latest feed's first
-- page until a time.
--
-- The operator account is made by the first `soom admin card post`, with the reserved nickname
-- and a key no device has (its public key is not a key, so no signature ever matches it): no one
-- can sign in as it. There is at most one.
ALTER TABLE accounts ADD COLUMN is_operator boolean NOT NULL DEFAULT false;
CREATE UNIQUE INDEX accounts_operator_idx ON accounts (is_operator) WHERE is_operator;

-- While ahead, the card leads the first page of the latest feed. Only operator cards are pinned.
ALTER TABLE cards ADD COLUMN pinned_until timestamptz;
CREATE INDEX cards_pinned_idx ON cards (created_at DESC, id DESC) WHERE pinned_until IS NOT NULL;
