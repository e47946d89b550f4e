/** Request and response schemas of the dashboard's own operations (docs/dashboard.md). */
import { Type } from '@sinclair/typebox';
import { ALL_PERMISSIONS, ROLES } from '../../domain/people/permissions.ts';
import { Nullable, StringEnum, Timestamp, Uuid } from './common.ts';

const Email = Type.String({ format: 'email', minLength: 3, maxLength: 254, description: 'an e-mail address' });
/** Checked by the password policy (docs/dashboard.md, "Passwords"), which words its own refusals. */
const NewPassword = Type.String({
  minLength: 1,
  maxLength: 1024,
  description: 'at least 12 characters, not a common one',
});
const Password = Type.String({ minLength: 1, maxLength: 1024 });
const Name = Type.String({ minLength: 1, maxLength: 200 });
const Token = Type.String({ minLength: 1, maxLength: 256, description: 'the token of the link' });
const RoleSchema = StringEnum(ROLES, { description: 'owner, manager, box_office, door or viewer' });

export const SignInBody = Type.Object(
  {
    email: Email,
    password: Password,
    totp: Type.Optional(
      Type.String({ minLength: 1, maxLength: 32, description: 'the 6-digit code of the app, or a recovery code' }),
    ),
  },
  { additionalProperties: false },
);

export const SessionBody = Type.Object(
  {
    object: Type.Literal('session'),
    user: Type.Object({ id: Uuid, email: Type.String(), name: Type.String(), totp_enabled: Type.Boolean() }),
    memberships: Type.Array(Type.Object({ organizer_id: Uuid, organizer_name: Type.String(), role: RoleSchema })),
    organizer_id: Uuid,
    organizer: Type.Object(
      { id: Uuid, name: Type.String(), currency: Type.String(), timezone: Type.String() },
      { description: 'the current organizer: its name, and the currency and time zone of its prices and dates' },
    ),
    role: RoleSchema,
    permissions: Type.Array(StringEnum(ALL_PERMISSIONS)),
    csrf_token: Type.String({ description: 'send it as the x-csrf-token header of every POST, PATCH and DELETE' }),
    expires_at: Timestamp,
    idle_expires_at: Timestamp,
  },
  { description: 'The signed-in user, their memberships, and the current organizer, role and permissions' },
);

export const SignOutQuery = Type.Object(
  { everywhere: Type.Optional(Type.Boolean({ description: 'end every session of the user' })) },
  { additionalProperties: false },
);

export const SwitchOrganizerBody = Type.Object({ organizer_id: Uuid }, { additionalProperties: false });

export const OwnSession = Type.Object({
  object: Type.Literal('user_session'),
  id: Uuid,
  user_agent: Nullable(Type.String()),
  ip: Nullable(Type.String()),
  created_at: Timestamp,
  last_seen_at: Timestamp,
  expires_at: Timestamp,
  current: Type.Boolean({ description: 'the session of this request' }),
});

export const UpdateProfileBody = Type.Object({ name: Name }, { additionalProperties: false });

export const ChangePasswordBody = Type.Object(
  { current_password: Password, new_password: NewPassword },
  { additionalProperties: false },
);

export const TotpEnrolment = Type.Object({
  secret: Type.String({ description: 'base32, for typing into an app' }),
  otpauth_url: Type.String(),
  qr_code: Type.String({ description: 'the otpauth URL as a data:image/png QR code' }),
});

export const TotpConfirmBody = Type.Object(
  { code: Type.String({ minLength: 1, maxLength: 16 }) },
  { additionalProperties: false },
);

export const RecoveryCodes = Type.Object({
  recovery_codes: Type.Array(Type.String(), { description: 'ten single-use codes, shown this once' }),
});

export const PasswordBody = Type.Object({ password: Password }, { additionalProperties: false });

export const Member = Type.Object({
  object: Type.Literal('member'),
  id: Uuid,
  email: Type.String(),
  name: Nullable(Type.String()),
  role: RoleSchema,
  status: StringEnum(['active', 'invited'] as const),
  user_id: Nullable(Uuid),
  invited_by: Nullable(Uuid),
  created_at: Timestamp,
});

export const InviteMemberBody = Type.Object({ email: Email, role: RoleSchema }, { additionalProperties: false });
export const UpdateMemberBody = Type.Object({ role: RoleSchema }, { additionalProperties: false });

export const TokenBody = Type.Object({ token: Token }, { additionalProperties: false });

export const InvitationPreview = Type.Object({
  organizer_name: Type.String(),
  email: Type.String(),
  role: RoleSchema,
  account_exists: Type.Boolean({
    description: 'the address has an account: accepting takes its password (and TOTP code), no name',
  }),
});

export const AcceptInvitationBody = Type.Object(
  {
    token: Token,
    name: Type.Optional(Name),
    password: Type.Optional(NewPassword),
    totp: Type.Optional(
      Type.String({ minLength: 1, maxLength: 32, description: 'an existing account with TOTP: its current code' }),
    ),
  },
  { additionalProperties: false },
);

export const PasswordResetRequestBody = Type.Object({ email: Email }, { additionalProperties: false });
export const PasswordResetBody = Type.Object({ token: Token, password: NewPassword }, { additionalProperties: false });

export const SetupBody = Type.Object(
  { token: Token, email: Email, name: Name, password: NewPassword },
  { additionalProperties: false },
);

export const CreateUserBody = Type.Object(
  { email: Email, password: NewPassword, name: Type.Optional(Name), organizer_id: Uuid, role: RoleSchema },
  { additionalProperties: false },
);

export const CreatedUser = Type.Object({
  object: Type.Literal('user'),
  id: Uuid,
  email: Type.String(),
  name: Type.String(),
  organizer_id: Uuid,
  role: RoleSchema,
});

/** A 204: no body. */
export const NoContent = { description: 'Done; no body', type: 'null' } as const;
