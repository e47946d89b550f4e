/**
 * People in the console (docs/console.md, "Signing in"; docs/dashboard.md), in a real
 * browser: an owner invites a manager, who accepts with a new account, turns on an
 * authenticator app (the code computed here from the secret the page shows), signs in
 * with it and removes it; a password reset from the mailed link; the first owner's set-up
 * link; the team screen (a role changed, the last owner kept, a member removed after a
 * confirmation); an invitation accepted by an existing account and the organizer
 * switcher; the profile's name, password, sessions and "Sign out everywhere". Every new
 * screen passes axe-core with no serious or critical violation and is photographed.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { totpCodeAt } from '../../src/domain/people/totp.ts';
import { createOwnerSetupLink } from '../../src/domain/people/links.ts';
import { BROWSER_SKIP, useBrowser } from '../helpers/browser.ts';
import {
  BOX_OFFICE_NAVIGATION,
  MANAGER_NAVIGATION,
  mailedLink,
  navigation,
  OWNER_NAVIGATION,
  signIn,
  useConsoleService,
  VIEWER_NAVIGATION,
} from '../helpers/console.ts';

const STRONG = 'correct horse battery staple 42';
const STRONGER = 'a brand new and rather long passphrase';
const TOTP_STEP_MS = 30_000;

/** The text of the page's status line (role=status) once it says something. */
async function statusOf(page: Page, text: string): Promise<void> {
  await page.getByRole('status').filter({ hasText: text }).waitFor();
}

describe('people in the console', { skip: BROWSER_SKIP }, () => {
  const service = useConsoleService();
  const browser = useBrowser();

  /** The TOTP code of `secret` now by the service's clock, one step after the last code used. */
  const freshCode = (secret: string) => {
    service.t.clock.advance(TOTP_STEP_MS);
    return totpCodeAt(secret, service.t.clock.now());
  };

  test('invite, accept with a new account, turn on an authenticator app, sign in with it', async () => {
    const owner = await browser.newPage();
    await signIn(owner, service.baseUrl, service.owner, '/app/team');
    await owner.getByRole('heading', { level: 1, name: 'Team' }).waitFor();
    await owner.locator('tr[data-member]').first().waitFor();
    assert.deepEqual(await browser.seriousViolations(owner), []);
    await browser.screenshot(owner, 'console', 'team');

    await owner.getByLabel('E-mail address').fill('nina@example.test');
    await owner.getByLabel('Role', { exact: true }).selectOption({ label: 'Manager' });
    await owner.getByRole('button', { name: 'Send invitation' }).click();
    await statusOf(owner, 'Invitation sent to nina@example.test.');
    const invitation = owner.locator('tr[data-member="nina@example.test"]');
    await invitation.waitFor();
    assert.match(await invitation.innerText(), /nina@example\.test\s+Manager/);

    // The invitee opens the mailed link in a browser of their own.
    const link = await mailedLink(service.t, 'nina@example.test');
    assert.match(link, /^\/app\/invite\?token=/);
    const nina = await browser.newPage();
    await nina.goto(`${service.baseUrl}${link}`);
    await nina.getByRole('heading', { level: 1, name: 'Invitation' }).waitFor();
    await nina.getByText('invites nina@example.test').waitFor();
    assert.equal(
      (await nina.locator('.invitation').innerText()).trim(),
      'Lighthouse Jazz Club invites nina@example.test to its team as Manager.',
    );
    assert.deepEqual(await browser.seriousViolations(nina), []);
    await browser.screenshot(nina, 'console', 'invite');
    await nina.getByLabel('Your name').fill('Nina Newman');
    await nina.getByLabel('Password').fill('password');
    await nina.getByRole('button', { name: 'Accept invitation' }).click();
    // The password policy refuses a common password, beside the field.
    const weak = nina.locator('#f-password-error');
    await weak.waitFor();
    assert.equal(await nina.getByLabel('Password').getAttribute('aria-invalid'), 'true');
    await nina.getByLabel('Password').fill(STRONG);
    await nina.getByRole('button', { name: 'Accept invitation' }).click();

    // Accepting signs in: a manager's navigation (no Team), at home.
    await nina.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
    assert.equal(await nina.locator('.who .user').textContent(), 'Nina Newman');
    assert.equal(await nina.locator('.who .badge').textContent(), 'Manager');
    assert.deepEqual(await navigation(nina), MANAGER_NAVIGATION);
    assert.equal(await nina.evaluate(() => document.cookie), '');

    // Profile: turn on the authenticator app.
    await nina.getByRole('link', { name: 'Profile' }).click();
    await nina.getByRole('heading', { level: 1, name: 'Profile' }).waitFor();
    await nina.getByRole('button', { name: 'Set up an authenticator app' }).click();
    const qr = nina.getByRole('img', { name: 'QR code of the key, for your authenticator app' });
    await qr.waitFor();
    assert.match((await qr.getAttribute('src'))!, /^data:image\/png;base64,/);
    assert.equal(await qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0), true);
    const secret = (await nina.locator('.totp-enrol code.secret').textContent())!.trim();
    assert.match(secret, /^[A-Z2-7]{16,}$/);
    assert.deepEqual(await browser.seriousViolations(nina), []);
    await browser.screenshot(nina, 'console', 'profile-totp-enrol');
    await nina.getByLabel('Authentication code').fill(freshCode(secret));
    await nina.getByRole('button', { name: 'Turn on' }).click();
    const codes = nina.locator('.recovery-codes li');
    await codes.first().waitFor();
    assert.equal(await codes.count(), 10);
    assert.deepEqual(await browser.seriousViolations(nina), []);
    await browser.screenshot(nina, 'console', 'profile-recovery-codes');
    await nina.getByRole('button', { name: 'I have kept them' }).click();
    await nina.getByRole('button', { name: 'Remove authenticator app' }).waitFor();
    assert.equal(await codes.count(), 0, 'the recovery codes are shown once');

    // Sign out; signing in now asks for the code after the password.
    await nina.getByRole('button', { name: 'Sign out', exact: true }).click();
    await nina.getByLabel('E-mail address').fill('nina@example.test');
    await nina.getByLabel('Password').fill(STRONG);
    await nina.getByRole('button', { name: 'Sign in' }).click();
    const codeField = nina.getByLabel('Authentication code');
    await codeField.waitFor();
    // The focus moves to the code in the frame after the field appears.
    await nina.waitForFunction(() => document.activeElement?.id === 'totp', undefined, { timeout: 5000 });
    assert.deepEqual(await browser.seriousViolations(nina), []);
    await browser.screenshot(nina, 'console', 'sign-in-totp');
    await codeField.fill('000000');
    await nina.getByRole('button', { name: 'Verify' }).click();
    const refused = nina.getByRole('alert');
    await refused.waitFor();
    assert.match(await refused.innerText(), /^\S.*\n\nRequest id: \S+$/);
    await codeField.fill(freshCode(secret));
    await nina.getByRole('button', { name: 'Verify' }).click();
    await nina.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
    assert.equal(await nina.locator('.who .user').textContent(), 'Nina Newman');

    // Removing the app asks for the password; then signing in needs the password only.
    await nina.getByRole('link', { name: 'Profile' }).click();
    await nina.getByLabel('Your password').fill(STRONG);
    await nina.getByRole('button', { name: 'Remove authenticator app' }).click();
    await nina.getByRole('button', { name: 'Set up an authenticator app' }).waitFor();
    await nina.getByRole('button', { name: 'Sign out', exact: true }).click();
    await signIn(nina, service.baseUrl, { email: 'nina@example.test', password: STRONG });

    // The owner's team screen shows her as an active manager.
    await owner.reload();
    const member = owner.locator('tr[data-member="nina@example.test"]');
    await member.getByRole('combobox').waitFor();
    assert.equal(await member.getByRole('combobox').inputValue(), 'manager');
    assert.match(await member.innerText(), /^Nina Newman/);
    assert.deepEqual(browser.errorsOf(nina), []);
    assert.deepEqual(browser.errorsOf(owner), []);
  });

  test('forgot password: the mailed link sets a new one, the old one stops working', async () => {
    const person = await service.t.createUser({
      organizerId: service.org.id,
      role: 'box_office',
      email: 'bo@example.test',
      name: 'Bo Box',
    });
    const page = await browser.newPage();
    await page.goto(`${service.baseUrl}/app/`);
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.getByRole('heading', { level: 1, name: 'Forgot password' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/app/reset');
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'reset-request');
    await page.getByLabel('E-mail address').fill(person.email);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await statusOf(page, 'a link to choose a new password is on its way');

    const link = await mailedLink(service.t, person.email);
    assert.match(link, /^\/app\/reset\?token=/);
    await page.goto(`${service.baseUrl}${link}`);
    await page.getByRole('heading', { level: 1, name: 'Choose a new password' }).waitFor();
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'reset-new-password');
    await page.getByLabel('New password').fill(person.email);
    await page.getByRole('button', { name: 'Set the password' }).click();
    await page.locator('#f-password-error').waitFor();
    await page.getByLabel('New password').fill(STRONGER);
    await page.getByRole('button', { name: 'Set the password' }).click();
    await statusOf(page, 'Your password is changed');
    await page.getByRole('link', { name: 'Sign in' }).click();

    // The old password is refused; the new one signs in (a box office: no Webhooks' writes, no Team).
    await page.getByLabel('E-mail address').fill(person.email);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'The e-mail address or password is not correct.' }).waitFor();
    await signIn(page, service.baseUrl, { email: person.email, password: STRONGER });
    assert.deepEqual(await navigation(page), BOX_OFFICE_NAVIGATION);

    // The link worked once.
    const again = await browser.newPage();
    await again.goto(`${service.baseUrl}${link}`);
    await again.getByLabel('New password').fill('yet another long passphrase');
    await again.getByRole('button', { name: 'Set the password' }).click();
    await again
      .getByRole('alert')
      .filter({ hasText: 'This password reset link has expired or was already used.' })
      .waitFor();
    await again.getByRole('link', { name: 'Send a new link' }).click();
    await again.getByRole('button', { name: 'Send the link' }).waitFor();
    assert.deepEqual(browser.errorsOf(page), []);
  });

  test('the set-up link makes the first owner of a new organizer', async () => {
    const { t } = service;
    const created = await t.admin('POST', '/admin/v1/organizers', { name: 'Harbour Hall' });
    assert.equal(created.statusCode, 201, created.body);
    const token = await createOwnerSetupLink(t.database.db, created.json().id, t.clock.now());
    const page = await browser.newPage();
    await page.goto(`${service.baseUrl}/app/setup?token=${token}`);
    await page.getByRole('heading', { level: 1, name: 'Set up Marquee' }).waitFor();
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'setup');
    await page.getByLabel('E-mail address').fill('harriet@example.test');
    await page.getByLabel('Your name').fill('Harriet Harbour');
    await page.getByLabel('Password').fill(STRONG);
    await page.getByRole('button', { name: 'Create the account' }).click();
    await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
    assert.equal(await page.locator('.who .organizer').textContent(), 'Harbour Hall');
    assert.equal(await page.locator('.who .badge').textContent(), 'Owner');
    assert.deepEqual(await navigation(page), OWNER_NAVIGATION);
    assert.deepEqual(browser.errorsOf(page), []);
  });

  test('team: change a role, keep the last owner, remove a member after confirming', async () => {
    const { t, org } = service;
    const viewer = await t.createUser({ organizerId: org.id, role: 'viewer', email: 'val@example.test', name: 'Val' });
    const page = await browser.newPage();
    await signIn(page, service.baseUrl, service.owner, '/app/team');
    const row = page.locator('tr[data-member="val@example.test"]');
    await row.getByRole('combobox').selectOption({ label: 'Box office' });
    await statusOf(page, 'Val is now Box office.');
    const session = await t.signIn(viewer.email, viewer.password);
    assert.equal(session.body.role, 'box_office');

    // Demoting the only owner is refused with the API's detail; the role stays.
    const ownerRow = page.locator(`tr[data-member="${service.owner.email}"]`);
    await ownerRow.getByRole('combobox').selectOption({ label: 'Manager' });
    const refusal = page.getByRole('alert');
    await refusal.waitFor();
    assert.match(
      await refusal.innerText(),
      /would leave this organizer without an owner\. Make another member an owner first\.\n\nRequest id: \S+$/,
    );
    await page.waitForFunction(
      (email) => document.querySelector<HTMLSelectElement>(`tr[data-member="${email}"] select`)?.value === 'owner',
      service.owner.email,
    );
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'team-last-owner');

    // Removing asks once more; Cancel keeps the member.
    await row.getByRole('button', { name: 'Remove Val' }).click();
    await row.getByRole('button', { name: 'Cancel' }).click();
    await row.getByRole('button', { name: 'Remove Val' }).click();
    await row.getByRole('button', { name: 'Yes, remove Val' }).click();
    await statusOf(page, 'Val was removed.');
    await row.waitFor({ state: 'detached' });
    // Their session on this organizer ended at once.
    assert.equal((await t.dash(session, 'GET', '/dashboard/v1/session')).statusCode, 401);
    assert.deepEqual(browser.errorsOf(page), []);
  });

  test('an existing account accepts an invitation; the switcher moves between organizers', async () => {
    const { t } = service;
    const other = await t.createOrganizer({ name: 'Seaside Stage', currency: 'GBP', timezone: 'Europe/London' });
    const seasideOwner = await t.createUser({ organizerId: other.id, role: 'owner' });
    const event = await t.api(other.key, 'POST', '/v1/events', {
      title: 'Seaside matinee',
      venue: { name: 'Pier' },
      performances: [{ starts_at: '2027-06-01T14:00:00Z', capacity: 50 }],
      ticket_types: [{ name: 'Entry', price_minor: 1200 }],
    });
    assert.equal(event.statusCode, 201, event.body);
    const session = await t.signIn(seasideOwner.email, seasideOwner.password);
    const invited = await t.dash(session, 'POST', '/dashboard/v1/members', {
      email: service.owner.email,
      role: 'viewer',
    });
    assert.equal(invited.statusCode, 201, invited.body);
    const link = await mailedLink(t, service.owner.email);

    const page = await browser.newPage();
    await page.goto(`${service.baseUrl}${link}`);
    await page.getByText('already has a Marquee account').waitFor();
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'invite-existing-account');
    // The link alone is not enough for an existing account: its password is asked.
    await page.getByLabel('Password').fill('not the password at all');
    await page.getByRole('button', { name: 'Accept invitation' }).click();
    await page.getByText('The e-mail address or password is not correct.').waitFor();
    await page.getByLabel('Password').fill(service.owner.password);
    await page.getByRole('button', { name: 'Accept invitation' }).click();

    // Accepting signs in to the new organizer, as a viewer there.
    await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
    const switcher = page.getByLabel('Organizer');
    assert.equal(await switcher.locator('option:checked').textContent(), 'Seaside Stage');
    assert.equal(await page.locator('.who .badge').textContent(), 'Viewer');
    await page.getByRole('link', { name: 'Seaside matinee' }).waitFor();
    assert.deepEqual(await navigation(page), VIEWER_NAVIGATION);
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'organizer-switcher');

    // Switching reloads every screen for the other organizer, with that role.
    const switched = page.waitForResponse((r) => r.url().endsWith('/dashboard/v1/session/organizer'));
    await switcher.selectOption({ label: 'Lighthouse Jazz Club' });
    assert.equal((await switched).status(), 200);
    await page.locator('.who .badge', { hasText: 'Owner' }).waitFor();
    await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
    await page.getByRole('link', { name: 'New event' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Seaside matinee' }).count(), 0);
    assert.deepEqual(await navigation(page), OWNER_NAVIGATION);
    assert.deepEqual(browser.errorsOf(page), []);
  });

  test('profile: the name, the sessions (this device marked, one ended), a new password, sign out everywhere', async () => {
    const { t, org } = service;
    const person = await t.createUser({ organizerId: org.id, role: 'manager', name: 'Pat' });
    const elsewhere = await t.signIn(person.email, person.password);
    const page = await browser.newPage();
    await signIn(page, service.baseUrl, person, '/app/profile');
    await page.getByRole('heading', { level: 1, name: 'Profile' }).waitFor();

    await page.getByLabel('Name', { exact: true }).fill('Pat Patterson');
    await page.getByRole('button', { name: 'Save name' }).click();
    await statusOf(page, 'Name saved.');
    assert.equal(await page.locator('.who .user').textContent(), 'Pat Patterson');

    const rows = page.locator('table.sessions tbody tr');
    await rows.nth(1).waitFor();
    assert.equal(await rows.count(), 2);
    const mine = page.locator('table.sessions tr[data-current]');
    assert.match(await mine.innerText(), /HeadlessChrome|Chrome/);
    assert.match(await mine.innerText(), /127\.0\.0\.1/);
    await mine.getByText('This device').waitFor();
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'profile');

    await page.getByRole('button', { name: 'End session' }).click();
    await rows.nth(1).waitFor({ state: 'detached' });
    assert.equal((await t.dash(elsewhere, 'GET', '/dashboard/v1/session')).statusCode, 401);

    // A new password ends every other session; this one goes on with the cookie the answer set.
    const another = await t.signIn(person.email, person.password);
    await page.getByLabel('Current password').fill(person.password);
    await page.getByLabel('New password').fill(STRONGER);
    await page.getByRole('button', { name: 'Change password' }).click();
    await statusOf(page, 'Password changed. Every other session of your account has ended.');
    assert.equal((await t.dash(another, 'GET', '/dashboard/v1/session')).statusCode, 401);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Profile' }).waitFor();
    await page.getByLabel('Name', { exact: true }).waitFor();

    // "Sign out everywhere" ends this session and any other.
    const third = await t.signIn(person.email, STRONGER);
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.getByLabel('E-mail address').waitFor();
    assert.equal((await t.dash(third, 'GET', '/dashboard/v1/session')).statusCode, 401);
    assert.deepEqual(await page.context().cookies(), []);
    assert.deepEqual(browser.errorsOf(page), []);
  });
});
