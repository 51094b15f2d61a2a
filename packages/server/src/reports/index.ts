import { Layer } from "effect"
import { FunderReportsHttpLive } from "./FunderReportsHttp.js"
import { FunderReportsService } from "./FunderReportsService.js"
import { ReportExports } from "./ReportExports.js"

export * from "./CsvEncoder.js"
export * from "./FunderReportsHttp.js"
export * from "./FunderReportsService.js"
export * from "./ReportExports.js"
export * from "./ReportRange.js"

/** Funder reports and their CSV exports (decisions D15, D17): the admin routes, with their services. */
export const FunderReportsLive = FunderReportsHttpLive.pipe(
  Layer.provide(Layer.merge(FunderReportsService.Default, ReportExports.Default))
)
