// tile audit RESULTS: prints the audit's receipt (JSON). Exit 0 clean, 1 on any finding, 2 when
// the input cannot be read. Like the audit itself, this imports nothing from the benchmark or
// the core.
import { auditResults } from "../audit/audit";

export function auditCommand(results: string, root?: string): number {
  const receipt = auditResults(results, root);
  process.stdout.write(JSON.stringify(receipt, null, 2) + "\n");
  if (receipt.exitCode === 2) process.stderr.write(`tile audit: cannot read ${receipt.results}: ${receipt.error}\n`);
  else if (receipt.exitCode === 1) process.stderr.write(`tile audit: ${receipt.findings.length} finding(s): ${receipt.findingIds.join(", ")}\n`);
  return receipt.exitCode;
}
