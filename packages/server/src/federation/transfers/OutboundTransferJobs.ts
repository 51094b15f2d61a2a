import { CurrentTenant } from "@timebank/domain"
import { Effect, Layer, Option } from "effect"
import { registerJobs } from "../../platform/JobRegistry.js"
import { TenantDirectory } from "../../tenancy/TenantDirectory.js"
import { OutboundTransfers } from "./OutboundTransfers.js"

/**
 * `federation.transfers.recover` (decisions "Outbound transfers"), every five minutes per community: settles the
 * outbound transfers a stopped process left `pending` — the hours come back to the member, or the row goes when
 * nothing had moved. It runs whatever the federation switches say: stuck money is returned in any case. Its items
 * are the transfers settled. Needs `LedgerService` from the app.
 */
export const OutboundTransferJobsLive = registerJobs(
  Effect.map(Effect.zip(OutboundTransfers, TenantDirectory), ([transfers, tenants]) => [{
    id: "federation.transfers.recover",
    description: "Returns the hours of outbound federation transfers left pending by a stopped process",
    schedule: "*/5 * * * *",
    run: ({ at, tenantId }) =>
      Effect.flatMap(
        tenants.findById(tenantId),
        Option.match({
          onNone: () => Effect.succeed(0),
          onSome: (tenant) => Effect.provideService(transfers.recoverInterrupted(at), CurrentTenant, tenant)
        })
      )
  }])
).pipe(
  Layer.provide(Layer.merge(OutboundTransfers.Default, TenantDirectory.Default)),
  // SecretBox (through PartnerDirectory) reads its key at start: a missing one is a defect of the deployment.
  Layer.orDie
)
