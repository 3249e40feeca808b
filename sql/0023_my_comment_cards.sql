-- The comment cards an account wrote (`GET /v1/me/comments`, newest first, keyset paged) and
-- whether the caller wrote a live one on a card (`commentedByMe`): both read by author and
-- parent among comment cards only.

CREATE INDEX cards_author_comments_idx ON cards (author_id, created_at DESC, id DESC) INCLUDE (expires_at)
    WHERE parent_id IS NOT NULL AND hidden_at IS NULL;
CREATE INDEX cards_commenter_idx ON cards (parent_id, author_id) WHERE parent_id IS NOT NULL AND hidden_at IS NULL;
