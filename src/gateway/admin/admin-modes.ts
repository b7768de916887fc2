// Who may reload the gateway over HTTP (--admin-reload): see admin.ts.
export const ADMIN_RELOAD = ['loopback', 'token', 'off'] as const;
export type AdminReload = (typeof ADMIN_RELOAD)[number];
