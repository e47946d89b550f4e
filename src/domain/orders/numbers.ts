/**
 * Human-readable numbers and unguessable serials.
 *
 * - order_no: 8 characters of an alphabet without look-alikes (no 0/O, 1/I/L, U), random,
 *   so no counter row serializes an organizer's sales; a collision (1 in 10^12 per pair)
 *   is retried by the caller (INSERT … ON CONFLICT DO NOTHING).
 * - transaction_no: `<order_no>-T<n>`, ticket_no: `<order_no>-<nnn>`: unique per organizer
 *   because order_no is, and readable over the phone.
 * - serial_no: what a gate scans; 160 random bits in RFC 4648 base32 (32 characters,
 *   upper case and digits, the QR alphanumeric mode's alphabet).
 */
import { randomBytes, randomInt } from 'node:crypto';

const ORDER_NO_ALPHABET = '23456789ABCDEFGHJKMNPQRSTVWXYZ';
const ORDER_NO_LENGTH = 8;

export function generateOrderNo(): string {
  let out = '';
  for (let i = 0; i < ORDER_NO_LENGTH; i++) out += ORDER_NO_ALPHABET[randomInt(ORDER_NO_ALPHABET.length)];
  return out;
}

export function transactionNo(orderNo: string, position: number): string {
  return `${orderNo}-T${position}`;
}

export function ticketNo(orderNo: string, position: number): string {
  return `${orderNo}-${String(position).padStart(3, '0')}`;
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function base32(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** 160 random bits: 32 base32 characters. */
export function generateSerialNo(): string {
  return base32(randomBytes(20));
}
