-- What a buyer carries (docs/tickets.md): the language of an event's mails, PDF tickets and
-- wallet passes, the organizer's default language and the paper size of its PDF tickets,
-- and a note on a sent mail when something it should have carried was left out (a wallet
-- pass that could not be signed).
--
-- A language is a BCP 47 tag the service ships a catalogue for (en, de, fr, es, ar); the
-- set grows with the catalogues, so the application checks it, not a CHECK constraint.
-- NULL on an event: the organizer's default; NULL on the organizer: English.

ALTER TABLE events
  ADD COLUMN language text CHECK (char_length(language) BETWEEN 2 AND 35);

ALTER TABLE organizers
  ADD COLUMN default_language text CHECK (char_length(default_language) BETWEEN 2 AND 35),
  ADD COLUMN ticket_paper_size text NOT NULL DEFAULT 'a4' CHECK (ticket_paper_size IN ('a4', 'letter'));

ALTER TABLE email_jobs
  ADD COLUMN notes text CHECK (char_length(notes) <= 2000);
