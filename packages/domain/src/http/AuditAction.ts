import { Context } from "effect"

/**
 * An endpoint annotation naming the action an admin write records in the audit trail, where the name derived from
 * its path and method would mislead: `HttpApiEndpoint.post(...).annotate(AuditAction, "cache.cleared")`. Without it
 * the trail names `PUT /api/v2/admin/config/features` `config.features.updated`, `POST /api/v2/admin/categories`
 * `categories.created` and `POST /api/v2/admin/users/:id/approve` `users.approve`.
 */
export class AuditAction extends Context.Tag("timebank/http/AuditAction")<AuditAction, string>() {}
