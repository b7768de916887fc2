// The admin routes by name. The admin plane lists them when it refuses an unknown one; the access
// record names an admin request by its path only when it is one of these (any other is
// admin:unknown, so a scan cannot grow the label set). Kept here, below the admin plane, so what
// observes the gateway does not import the admin that reports it.
export const ADMIN_PATHS = ['/_gateway/health', '/_gateway/ready', '/_gateway/reload (POST)', '/_gateway/catalogue', '/_gateway/openapi.json', '/_gateway/asyncapi.json', '/_gateway/docs', '/_gateway/releases', '/_gateway/metrics', '/_gateway/drift', '/_gateway/plan'];
