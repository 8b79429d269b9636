# The seed skill's "Locate Delegation Data" scan (seeds/003_ffd359b3c0b919fc.txt), adapted only
# to the engine's snake_case type names and to both directory layouts. The sessions root is the
# first argument instead of ~/.astra/sessions so the benchmark can point it at its corpus.
import glob, json, os, sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.expanduser("~/.astra/sessions")
events = []
names = {
    "delegation_started",
    "delegation_sub_run_started",
    "delegation_retry",
    "delegation_sub_run_completed",
    "delegation_completed",
}
paths = glob.glob(os.path.join(root, "*.jsonl")) + glob.glob(os.path.join(root, "v1/users/*/sessions/*.jsonl"))
for path in paths:
    with open(path, "r", encoding="utf-8", errors="replace") as fh:
        for line_no, line in enumerate(fh, 1):
            try:
                event = json.loads(line)
            except Exception:
                continue
            if event.get("type") in names:
                meta = event.get("metadata") or {}
                events.append((event.get("ts", ""), path, line_no, event.get("type"), meta))

for ts, path, line_no, typ, meta in events[-80:]:
    did = str(meta.get("delegation_id", ""))[:16]
    rid = meta.get("sub_run_id") or meta.get("parent_run_id") or meta.get("retry_run_id") or ""
    print(f"{ts[:19]} | {typ:27s} | {did:16s} | {rid} | {path}:{line_no}")
