-- Organizer settings (docs/dashboard.md, "Organizer settings"): a contact address and a
-- sender address for the buyer's mails, and the rule that the currency is fixed once the
-- organizer has an order.
--
-- The currency rule is kept in the database. A currency change (updateOrganizerSettings)
-- locks the organizer row FOR UPDATE, then updates it only WHERE NOT EXISTS an order.
-- A sale reads the currency outside its transaction (src/domain/orders/create-order.ts),
-- so on its own the conditional UPDATE would let a sale that read the old currency commit
-- an order in it after the change. The trigger below closes that: an order's insert locks
-- the organizer row FOR KEY SHARE (the lock its foreign key takes anyway, compatible with
-- every other sale and settings update, but not with the currency change's FOR UPDATE)
-- and compares the currency with the row's latest version:
--   - a change that holds the row makes the insert wait; once it commits, the order's
--     currency differs and the sale fails with 40001 (serialization_failure), which the
--     API answers 503 `resource_busy` with `retry-after`; the retry reads the new currency;
--   - an insert that holds the row makes the change wait; the change's UPDATE then sees
--     the committed order and refuses (409 `invalid_state`).

ALTER TABLE organizers
  ADD COLUMN contact_email text CHECK (char_length(contact_email) BETWEEN 3 AND 254),
  ADD COLUMN sender_email  text CHECK (char_length(sender_email) BETWEEN 3 AND 254);

CREATE FUNCTION orders_currency_is_the_organizers() RETURNS trigger
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  current_currency char(3);
BEGIN
  SELECT o.currency INTO current_currency FROM organizers o WHERE o.id = NEW.organizer_id FOR KEY SHARE;
  IF FOUND AND current_currency <> NEW.currency THEN
    RAISE EXCEPTION 'the organizer''s currency changed to % while this order in % was being written',
      current_currency, NEW.currency
      USING ERRCODE = '40001';
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER orders_currency_is_the_organizers
  BEFORE INSERT ON orders
  FOR EACH ROW EXECUTE FUNCTION orders_currency_is_the_organizers();
