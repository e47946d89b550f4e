-- Who created an API key in the dashboard's developer settings (docs/dashboard.md,
-- "Developer settings"); null for keys made by the admin API or at first start, and once
-- that user is gone.
ALTER TABLE api_keys ADD COLUMN created_by uuid REFERENCES users (id) ON DELETE SET NULL;
