/**
 * Organizer settings in the console (docs/console.md, "Screens"; docs/dashboard.md,
 * "Organizer settings"), in a real browser: an owner changes the name and the box-office
 * fee (major units, sent as minor) and the tax rate (percent, sent as basis points), the
 * API answers them and the header shows the new name; a fee that is no amount is refused
 * beside its field before anything is sent; once the organizer has an order the currency
 * select is disabled with the reason beside it; the whole form works with the keyboard
 * alone; a manager has neither Settings nor Audit log; the ticket language (German) and
 * paper size are saved and shown after a reload, and an event's detail offers the
 * organizer's default as its ticket language; an Apple Wallet certificate with a key that
 * is not its own is refused beside the key's field, then stored with its own key (shown
 * with its expiry, the key nowhere in the page), then removed, asked once; a Google Wallet
 * issuer id that is not digits refused beside its field, then the issuer and key stored,
 * an order's screen offering its Add to Google Wallet link, and the settings removed.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { BROWSER_SKIP, useBrowser } from '../helpers/browser.ts';
import { createEvent } from '../helpers/catalog.ts';
import { signIn, useConsoleService } from '../helpers/console.ts';
import { BUYER } from '../helpers/orders.ts';
import { makePassCertificates } from '../helpers/wallet-certificates.ts';

const navigation = (page: Page) => page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();

describe('organizer settings in the console', { skip: BROWSER_SKIP }, () => {
  const service = useConsoleService({ env: { WALLET_SECRETS_KEY: '22'.repeat(32) } });
  const browser = useBrowser();

  /** GET /dashboard/v1/organizer as the owner, over the API (not the page). */
  // One API session for the file: each sign-in counts against the owner's sign-in rate limit.
  let apiSession: Awaited<ReturnType<typeof service.t.signIn>> | undefined;
  const settingsOverApi = async () => {
    const session = (apiSession ??= await service.t.signIn(service.owner.email, service.owner.password));
    const res = await service.t.dash(session, 'GET', '/dashboard/v1/organizer');
    assert.equal(res.statusCode, 200, res.body);
    return res.json<Record<string, unknown>>();
  };

  test('change the name, fee and tax rate; the API answers them; the header follows', async () => {
    const page = await browser.newPage();
    await signIn(page, service.baseUrl, service.owner, '/app/settings');
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
    assert.deepEqual((await navigation(page)).slice(-2), ['Settings', 'Audit log']);
    const name = page.getByLabel('Name', { exact: true });
    await name.waitFor();
    assert.equal(await name.inputValue(), 'Lighthouse Jazz Club');
    assert.equal(await page.getByLabel('Default time zone').inputValue(), 'Europe/Berlin');
    const currency = page.getByLabel('Currency');
    assert.equal(await currency.inputValue(), 'EUR');
    assert.equal(await currency.isDisabled(), false);
    assert.equal(await page.getByLabel('Box-office fee (EUR)').inputValue(), '0.00');
    assert.equal(await page.getByLabel('Tax rate (%)').inputValue(), '0');
    assert.equal(await page.getByLabel('Contact e-mail (optional)').inputValue(), '');
    assert.equal(await page.getByLabel('Sender e-mail (optional)').inputValue(), '');
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'settings');

    // A fee that is no amount is refused beside its field; nothing is sent.
    await page.getByLabel('Box-office fee (EUR)').fill('1,50');
    await page.getByRole('button', { name: 'Save settings' }).click();
    const feeError = page.locator('#f-box_office_fee_minor-error');
    await feeError.waitFor();
    assert.equal(await feeError.textContent(), 'Enter the fee in EUR with at most 2 decimals, such as 2.50.');
    assert.equal(await page.getByLabel('Box-office fee (EUR)').getAttribute('aria-invalid'), 'true');
    await page.waitForFunction(() => document.activeElement?.id === 'f-box_office_fee_minor');
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'settings-field-error');
    assert.equal((await settingsOverApi()).box_office_fee_minor, 0);

    await name.fill('Lighthouse Jazz Collective');
    await page.getByLabel('Box-office fee (EUR)').fill('1.50');
    await page.getByLabel('Tax rate (%)').fill('7.5');
    await page.getByLabel('Contact e-mail (optional)').fill('hello@lighthouse.example');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
    await page.locator('.who .organizer', { hasText: 'Lighthouse Jazz Collective' }).waitFor();
    assert.equal(await page.locator('#f-box_office_fee_minor-error').count(), 0);
    assert.equal(await page.getByLabel('Box-office fee (EUR)').inputValue(), '1.50');
    assert.equal(await page.getByLabel('Tax rate (%)').inputValue(), '7.5');

    const saved = await settingsOverApi();
    assert.equal(saved.name, 'Lighthouse Jazz Collective');
    assert.equal(saved.box_office_fee_minor, 150);
    assert.equal(saved.tax_rate_bps, 750);
    assert.equal(saved.contact_email, 'hello@lighthouse.example');
    assert.equal(saved.sender_email, null);
    assert.equal(saved.currency, 'EUR');
    assert.equal(saved.timezone, 'Europe/Berlin');

    // Saved means saved: a reload shows the API's values.
    await page.reload();
    await page.getByLabel('Name', { exact: true }).waitFor();
    assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'Lighthouse Jazz Collective');
    assert.equal(await page.getByLabel('Box-office fee (EUR)').inputValue(), '1.50');
    assert.equal(await page.locator('.who .organizer').textContent(), 'Lighthouse Jazz Collective');
    assert.deepEqual(browser.errorsOf(page), []);
  });

  test('keyboard only: tab to the fields, type, save with Enter', async () => {
    const page = await browser.newPage();
    await signIn(page, service.baseUrl, service.owner, '/app/settings');
    await page.getByLabel('Name', { exact: true }).waitFor();
    // From the skip link at the top of the page, Tab until the name field has the focus.
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
    await page.keyboard.press('Enter');
    let steps = 0;
    while ((await page.evaluate(() => document.activeElement?.id)) !== 'f-name') {
      assert.ok(++steps < 40, 'the name field is reachable with Tab');
      await page.keyboard.press('Tab');
    }
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('Lighthouse Keyboard Club');
    // Name → time zone → currency → fee → tax rate.
    for (const id of ['f-timezone', 'f-currency', 'f-box_office_fee_minor', 'f-tax_rate_bps']) {
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate(() => document.activeElement?.id), id);
    }
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('19');
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
    await page.locator('.who .organizer', { hasText: 'Lighthouse Keyboard Club' }).waitFor();
    const saved = await settingsOverApi();
    assert.equal(saved.name, 'Lighthouse Keyboard Club');
    assert.equal(saved.tax_rate_bps, 1900);
    assert.deepEqual(browser.errorsOf(page), []);
  });

  test('once an order exists the currency is locked, and the select says why', async () => {
    const { t, org } = service;
    // The page opens while the organizer has no order: the currency may still change.
    const page = await browser.newPage();
    await signIn(page, service.baseUrl, service.owner, '/app/settings');
    const open = page.getByLabel('Currency');
    await open.waitFor();
    assert.equal(await open.isDisabled(), false);

    // Meanwhile an order is placed over the API.
    const event = await createEvent(t, org.key);
    const order = await t.api(org.key, 'POST', '/v1/orders', {
      items: [
        {
          performance_id: event.ticket_types[0]!.prices[0]!.performance_id,
          ticket_type_id: event.ticket_types[0]!.id,
          quantity: 1,
        },
      ],
      buyer: BUYER,
      tender: 'cash',
    });
    assert.equal(order.statusCode, 201, order.body);
    assert.equal((await settingsOverApi()).currency_locked, true);

    // The change the page still offers is refused by the API (409, param `currency`), beside the field.
    await open.selectOption('USD');
    await page.getByRole('button', { name: 'Save settings' }).click();
    const refusal = page.locator('#f-currency-error');
    await refusal.waitFor();
    assert.equal(
      await refusal.textContent(),
      'The currency cannot change once the organizer has orders: it has 1, whose amounts, refunds and reports are in EUR.',
    );
    assert.equal(await open.getAttribute('aria-invalid'), 'true');
    await page.waitForFunction(() => document.activeElement?.id === 'f-currency');
    assert.equal((await settingsOverApi()).currency, 'EUR');
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'settings-currency-refused');

    // Read again, the settings say the currency is locked: the select is disabled, the reason beside it.
    await page.reload();
    const currency = page.getByLabel('Currency');
    await currency.waitFor();
    assert.equal(await currency.isDisabled(), true);
    assert.equal(await currency.inputValue(), 'EUR');
    const reason = page.locator('#f-currency-hint');
    assert.match((await reason.textContent())!, /^The currency stays EUR: .+ has orders in it/);
    assert.equal(await currency.getAttribute('aria-describedby'), 'f-currency-hint');
    assert.deepEqual(await browser.seriousViolations(page), []);
    await browser.screenshot(page, 'console', 'settings-currency-locked');

    // The other fields still save; the currency is not sent.
    await page.getByLabel('Sender e-mail (optional)').fill('tickets@lighthouse.example');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
    const saved = await settingsOverApi();
    assert.equal(saved.sender_email, 'tickets@lighthouse.example');
    assert.equal(saved.currency, 'EUR');
    assert.deepEqual(browser.errorsOf(page), []);
  });

  test('ticket language and paper size: German on Letter, saved, shown after a reload and on an event', async () => {
    const page = await browser.newPage();
    await signIn(page, service.baseUrl, service.owner, '/app/settings');
    const language = page.getByLabel('Ticket language');
    await language.waitFor();
    assert.deepEqual([await language.inputValue(), await page.getByLabel('Paper size').inputValue()], ['en', 'a4']);
    await language.selectOption({ label: 'Deutsch' });
    await page.getByLabel('Paper size').selectOption({ label: 'Letter' });
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
    const saved = await settingsOverApi();
    assert.deepEqual([saved.default_language, saved.ticket_paper_size], ['de', 'letter']);
    await page.reload();
    await page.getByLabel('Ticket language').waitFor();
    assert.deepEqual(
      [await page.getByLabel('Ticket language').inputValue(), await page.getByLabel('Paper size').inputValue()],
      ['de', 'letter'],
    );

    // An event follows the organizer until it chooses its own.
    const event = await createEvent(service.t, service.org.key);
    await page.goto(`${service.baseUrl}/app/events/${event.id}`);
    const eventLanguage = page.getByRole('combobox', { name: 'Ticket language' });
    await eventLanguage.waitFor();
    assert.equal(await eventLanguage.inputValue(), '');
    assert.equal(await eventLanguage.locator('option:checked').textContent(), 'Organizer default (Deutsch)');
    await eventLanguage.selectOption({ label: 'Español' });
    await page.getByRole('button', { name: 'Save ticket language' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved: buyers receive their tickets in Español.' }).waitFor();
    await page.reload();
    await eventLanguage.waitFor();
    assert.equal(await eventLanguage.inputValue(), 'es');
    await browser.screenshot(page, 'console', 'event-ticket-language');
    assert.deepEqual(await browser.seriousViolations(page), []);
    assert.deepEqual(browser.errorsOf(page), []);
  });

  test('Apple Wallet: a foreign key refused beside its field, the certificate stored, then removed', async () => {
    const certificates = await makePassCertificates('pass.test.marquee', 'TEAMID1234');
    try {
      const page = await browser.newPage();
      await signIn(page, service.baseUrl, service.owner, '/app/settings');
      const section = page.getByRole('region', { name: 'Apple Wallet' });
      const state = section.locator('.wallet-state');
      await state.waitFor();
      assert.equal(
        await state.textContent(),
        'Off: tickets get no Apple Wallet pass. With a pass type certificate from Apple’s developer account, every ticket gets one, in the e-mail and on the order screen.',
      );
      await section.getByLabel('Pass type ID').fill('pass.test.marquee');
      await section.getByLabel('Team ID').fill('TEAMID1234');
      await section.getByLabel('Pass type certificate (PEM)').setInputFiles(join(certificates.dir, 'signer.pem'));
      await section.getByLabel('Its private key (PEM)').setInputFiles(join(certificates.dir, 'other.key'));
      await section.getByLabel('Apple WWDR certificate (PEM)').setInputFiles(join(certificates.dir, 'ca.pem'));
      await section.getByLabel('Pass colour (optional)').fill('#102030');
      const save = section.getByRole('button', { name: 'Save the certificate' });
      await save.click();
      const keyError = page.locator('#f-private_key_pem-error');
      await keyError.waitFor();
      assert.equal(
        await keyError.textContent(),
        'The private key does not match the certificate: give the key exported with this pass type certificate.',
      );

      await section.getByLabel('Its private key (PEM)').setInputFiles(join(certificates.dir, 'signer.key'));
      await save.click();
      await section.getByRole('status').filter({ hasText: 'Apple Wallet passes are on.' }).waitFor();
      // The expiry's date as the console writes it, in the organizer's zone ("Nov 29, 2027"); its time follows.
      const expiryDate = new Intl.DateTimeFormat('en-US', {
        year: 'numeric',
        month: 'short',
        day: 'numeric',
        timeZone: 'Europe/Berlin',
      }).format(new Date(new X509Certificate(certificates.pem['signer.pem']).validTo));
      const shown = (await state.textContent()) ?? '';
      assert.equal(
        shown.replace(/ expires .*$/, ' expires'),
        'Every ticket gets a pass of pass.test.marquee (team TEAMID1234), signed by “UID=pass.test.marquee, CN=Pass Type ID: pass.test.marquee, OU=TEAMID1234, O=Marquee Test, C=DE”, whose certificate expires',
      );
      assert.ok(shown.includes(` expires ${expiryDate},`), shown);
      assert.equal(await page.locator('#f-private_key_pem-error').count(), 0);
      assert.equal((await page.content()).includes('PRIVATE KEY'), false);
      const stored = await service.t.database.db
        .selectFrom('apple_wallet_settings')
        .select(['pass_type_identifier', 'background_color'])
        .where('organizer_id', '=', service.org.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(stored, { pass_type_identifier: 'pass.test.marquee', background_color: 'rgb(16, 32, 48)' });
      assert.deepEqual(await browser.seriousViolations(page), []);
      await browser.screenshot(page, 'console', 'settings-apple-wallet');

      await section.getByRole('button', { name: 'Remove Apple Wallet' }).click();
      await section.getByRole('button', { name: 'Yes, remove the certificate' }).click();
      await section.getByRole('status').filter({ hasText: 'Apple Wallet passes are off.' }).waitFor();
      assert.match((await state.textContent())!, /^Off: tickets get no Apple Wallet pass\./);
      const left = await service.t.database.db
        .selectFrom('apple_wallet_settings')
        .select('organizer_id')
        .where('organizer_id', '=', service.org.id)
        .execute();
      assert.deepEqual(left, []);
      assert.deepEqual(browser.errorsOf(page), []);
    } finally {
      await certificates.remove();
    }
  });

  test('Google Wallet: a bad issuer id refused beside its field, then stored; the order screen offers the link', async () => {
    const { t, org } = service;
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const dir = mkdtempSync(join(tmpdir(), 'marquee-google-key-'));
    const keyFile = join(dir, 'service-account.json');
    writeFileSync(
      keyFile,
      JSON.stringify({
        type: 'service_account',
        private_key_id: 'k-0123',
        private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
        client_email: 'tickets@marquee-test.iam.gserviceaccount.com',
      }),
    );
    try {
      const page = await browser.newPage();
      await signIn(page, service.baseUrl, service.owner, '/app/settings');
      const section = page.getByRole('region', { name: 'Google Wallet' });
      const state = section.locator('.wallet-state');
      await state.waitFor();
      assert.match((await state.textContent())!, /^Off: the e-tickets carry no Google Wallet link\./);
      await section.getByLabel('Issuer ID').fill('33880000x');
      await section.getByLabel('Service account key (JSON)').setInputFiles(keyFile);
      const save = section.getByRole('button', { name: 'Save Google Wallet' });
      await save.click();
      const issuerError = page.locator('#f-issuer_id-error');
      await issuerError.waitFor();
      assert.equal(
        await issuerError.textContent(),
        'issuer_id must be the Google Wallet issuer id: 1 to 32 digits, as the Google Pay & Wallet Console shows it.',
      );
      await section.getByLabel('Issuer ID').fill('3388000000022');
      await save.click();
      await section.getByRole('status').filter({ hasText: 'Google Wallet links are on.' }).waitFor();
      assert.equal(
        await state.textContent(),
        'Each order’s e-tickets carry an “Add to Google Wallet” link of issuer 3388000000022, signed by tickets@marquee-test.iam.gserviceaccount.com (key k-0123).',
      );
      assert.equal((await page.content()).includes('PRIVATE KEY'), false);

      // An order's screen offers the same link the e-mail carries.
      const event = await createEvent(t, org.key);
      const sold = await t.api(org.key, 'POST', '/v1/orders', {
        items: [
          {
            performance_id: event.ticket_types[0]!.prices[0]!.performance_id,
            ticket_type_id: event.ticket_types[0]!.id,
            quantity: 2,
          },
        ],
        buyer: BUYER,
        tender: 'cash',
      });
      assert.equal(sold.statusCode, 201, sold.body);
      await page.goto(`${service.baseUrl}/app/orders/${sold.json<{ id: string }>().id}`);
      const link = page.getByRole('link', { name: 'Add to Google Wallet (2 tickets)' });
      await link.waitFor();
      assert.match(
        (await link.getAttribute('href'))!,
        /^https:\/\/pay\.google\.com\/gp\/v\/save\/[\w-]+\.[\w-]+\.[\w-]+$/,
      );
      assert.equal(await link.getAttribute('rel'), 'noopener noreferrer');

      await page.goto(`${service.baseUrl}/app/settings`);
      await section.getByRole('button', { name: 'Remove Google Wallet' }).click();
      await section.getByRole('button', { name: 'Yes, remove Google Wallet' }).click();
      await section.getByRole('status').filter({ hasText: 'Google Wallet links are off.' }).waitFor();
      const left = await t.database.db
        .selectFrom('google_wallet_settings')
        .select('organizer_id')
        .where('organizer_id', '=', org.id)
        .execute();
      assert.deepEqual(left, []);
      assert.deepEqual(browser.errorsOf(page), []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a manager has no Settings and no Audit log', async () => {
    const manager = await service.t.createUser({ organizerId: service.org.id, role: 'manager', name: 'Max Manager' });
    const page = await browser.newPage();
    await signIn(page, service.baseUrl, manager);
    await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
    const nav = await navigation(page);
    assert.equal(nav.includes('Settings'), false);
    assert.equal(nav.includes('Audit log'), false);
    for (const path of ['/app/settings', '/app/audit']) {
      await page.goto(`${service.baseUrl}${path}`);
      await page.getByRole('heading', { level: 1, name: 'Not found' }).waitFor();
    }
    assert.deepEqual(browser.errorsOf(page), []);
  });
});
