import 'server-only'
import { checkApiHealthTool } from '@/lib/mcp/tools/check_api_health'
import { checkDomainHealthTool } from '@/lib/mcp/tools/check_domain_health'
import { getPdsBlobStorageUsageTool } from '@/lib/mcp/tools/get_pds_blob_storage_usage'
import { getPdsBlobStorageUsageForDidTool } from '@/lib/mcp/tools/get_pds_blob_storage_usage_for_did'
import { getPdsBskyHeatmapTool } from '@/lib/mcp/tools/get_pds_bsky_heatmap'
import { getPdsReposTool } from '@/lib/mcp/tools/get_pds_repos'
import { listDomainsTool } from '@/lib/mcp/tools/list_domains'
import { listPoliciesTool } from '@/lib/mcp/tools/list_policies'
import { verifyPdsHandleAvailabilityTool } from '@/lib/mcp/tools/verify_pds_handle_availability'
import type { ReadOnlyTool } from '@/lib/mcp/tool'

// Every tool of the server, for both protocol eras. tools/list shows them sorted by name, so the
// list is the same on every request and every deploy that does not change it (the 2026-07-28
// revision asks for a deterministic order, for clients' caches and prompt caches). A new tool is one
// file in this folder and one line here.
const registry: readonly ReadOnlyTool[] = [
  checkDomainHealthTool,
  listDomainsTool,
  getPdsReposTool,
  verifyPdsHandleAvailabilityTool,
  getPdsBskyHeatmapTool,
  getPdsBlobStorageUsageTool,
  getPdsBlobStorageUsageForDidTool,
  checkApiHealthTool,
  listPoliciesTool,
]

export const tools: readonly ReadOnlyTool[] = [...registry].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))

export const toolNames: ReadonlySet<string> = new Set(tools.map((t) => t.name))
