-- A domain event's data is kept as the exact JSON text it was emitted as (json, not
-- jsonb), so a webhook body is built by pasting that text into the envelope: no parse
-- of the stored value and no serialization of it again at every attempt (envelope() in
-- src/domain/webhooks/dispatch.ts). Its keys also keep the order they were written in.
-- Nothing queries inside the data, so jsonb's operators and indexing are not missed.
ALTER TABLE domain_events ALTER COLUMN data TYPE json USING data::json;
