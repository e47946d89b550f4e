/**
 * Order arithmetic, in integer minor units. Per transaction (one per performance):
 *   items_total   = Σ unit price × quantity (catalog prices)
 *   service_fees  = organizer's box_office_fee_minor × tickets
 *   surcharges    = 0 (the box office has none)
 *   taxes         = tax_rate_bps of (items_total + service_fees), rounded half up, once
 *   total         = items_total + surcharges + taxes + service_fees
 * Each ticket carries its share: unit price + fee + a tax share, the tax shares being the
 * transaction's tax split by largest remainder, so tickets sum exactly to the transaction.
 */

interface PricedTicket {
  unitPriceMinor: number;
  feeMinor: number;
  taxMinor: number;
  totalMinor: number;
}

interface TransactionTotals {
  items_total_minor: number;
  surcharges_minor: number;
  taxes_minor: number;
  service_fees_minor: number;
  total_minor: number;
  tickets: PricedTicket[];
}

/** round_half_up(amount × bps / 10000) for non-negative integers, exact (BigInt). */
function taxOf(amountMinor: number, taxRateBps: number): number {
  return Number((BigInt(amountMinor) * BigInt(taxRateBps) + 5000n) / 10000n);
}

export function priceTransaction(unitPrices: number[], feeMinor: number, taxRateBps: number): TransactionTotals {
  const items = unitPrices.reduce((sum, price) => sum + price, 0);
  const fees = feeMinor * unitPrices.length;
  const taxes = taxOf(items + fees, taxRateBps);

  // Largest-remainder split of `taxes` over the tickets.
  const exact = unitPrices.map((price) => BigInt(price + feeMinor) * BigInt(taxRateBps));
  const floors = exact.map((value) => Number(value / 10000n));
  let left = taxes - floors.reduce((sum, value) => sum + value, 0);
  const byRemainder = exact
    .map((value, index) => ({ index, remainder: Number(value % 10000n) }))
    .sort((a, b) => b.remainder - a.remainder || a.index - b.index);
  const shares = [...floors];
  for (const { index } of byRemainder) {
    if (left <= 0) break;
    shares[index]! += 1;
    left -= 1;
  }
  return {
    items_total_minor: items,
    surcharges_minor: 0,
    taxes_minor: taxes,
    service_fees_minor: fees,
    total_minor: items + fees + taxes,
    tickets: unitPrices.map((price, index) => ({
      unitPriceMinor: price,
      feeMinor,
      taxMinor: shares[index]!,
      totalMinor: price + feeMinor + shares[index]!,
    })),
  };
}
