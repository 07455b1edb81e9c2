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

// Every tool of the server, in the order tools/list shows them (domains, social platform,
// platform). A new tool is one file in this folder and one line here.
export const tools: readonly ReadOnlyTool[] = [
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

export const toolNames: ReadonlySet<string> = new Set(tools.map((t) => t.name))
