#!/usr/bin/env bash
# bench/gpu/node_cost.py without a GPU: its pure parts (capture plan and node counts, least squares,
# the JSON document and its validation, summary lines) on made-up data with known answers; --refit,
# --dry-run and --self-test from the command line; bad input and a missing torch or CUDA device exit
# 2 with a message. The capture itself (torch.cuda.CUDAGraph on a GPU) is not exercised here.
source "$CGPLAN_TESTLIB"
export PYTHONDONTWRITEBYTECODE=1 # no __pycache__ in the source tree
set -e
: "${CGPLAN_SRC:?CGPLAN_SRC must point to the source tree}"
NC="$CGPLAN_SRC/bench/gpu/node_cost.py"
STANDIN="$CGPLAN_SRC/bench/gpu/testing"
DOC="$TEST_TMP/doc.json"

expect_exit 0 python3 "$NC" --self-test
contains "$OUT" "self-test ok: 10 checks" "self-test line"

# --- the pure functions, imported without torch; a made-up measurement written to $DOC
expect_exit 0 python3 - "$CGPLAN_SRC/bench/gpu" "$DOC" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[1])
import node_cost as nc
assert "torch" not in sys.modules, "importing node_cost imported torch"
MIB, K = 1 << 20, 15360
close = lambda a, b, tol=1e-6: abs(a - b) <= tol * max(1.0, abs(b))
def raises(fn, text):
    try:
        fn()
    except nc.Error as e:
        assert text in str(e), "%r not in %r" % (text, str(e))
        return
    raise AssertionError("no error, wanted: " + text)

# least squares: a textbook set (slope 0.6, intercept 2.2, r2 0.6, se sqrt(0.08), t(3) = 3.18)
f = nc.fit([1, 2, 3, 4, 5], [2, 4, 5, 4, 5])
assert close(f["slope"], 0.6) and close(f["intercept"], 2.2) and close(f["r2"], 0.6), f
assert close(f["se"], 0.08 ** 0.5) and close(f["low"], 0.6 - 3.18 * 0.08 ** 0.5) and f["points"] == 5, f
# an exact line of bytes per node recovers slope and intercept; a deterministic +-2 MiB noise stays close
xs = [n for n in (100, 500, 1000, 2500, 5000) for _ in range(5)]
f = nc.fit(xs, [K * x + 3 * MIB for x in xs])
assert close(f["slope"], K) and abs(f["intercept"] - 3 * MIB) < 1e-3 and f["r2"] == 1.0 and f["se"] == 0.0, f
f = nc.fit(xs, [K * x + 3 * MIB + ((i * 7919) % 5 - 2) * MIB for i, x in enumerate(xs)])
assert abs(f["slope"] - K) < 0.02 * K and f["low"] < K < f["high"] and f["points"] == 25, f
f = nc.fit([100, 200, 300], [2e6, 4e6, 6e6], origin=True)
assert close(f["slope"], 2e4) and "intercept" not in f and f["points"] == 3, f
raises(lambda: nc.fit([1, 2], [1, 2]), "a fit needs 3 points, got 2")
raises(lambda: nc.fit([7, 7, 7], [1, 2, 3]), "x does not vary")

# SGLang's grid, node counts, and the plan: largest first, the first graph of each pool flagged
assert nc.sglang_bs_grid(256) == [1, 2, 4, 8] + list(range(16, 257, 8)) and len(nc.sglang_bs_grid(256)) == 35
assert nc.sglang_bs_grid(20) == [1, 2, 4, 8, 16]
assert [nc.foreach_launches(t) for t in (100, 110, 111, 221)] == [1, 1, 2, 3] and nc.foreach_launches(770, 770) == 1
assert nc.tally_types([0, 0, 2, 1, 13, 99]) == {"kernel": 2, "memset": 1, "memcpy": 1, "conditional": 1, "type99": 1}
pts = nc.make_plan([100, 500, 1000, 2500, 5000], list(nc.KINDS), 5, "llama-3.1-8b", 8, 256)
syn = [p for p in pts if p["part"] == "synthetic"]
assert len(pts) == 143 and len(syn) == 100 and [p["index"] for p in pts] == list(range(143))
assert sum(p["nodes_expected"] for p in syn) == 4 * 5 * (100 + 500 + 1000 + 2500 + 5000) == 182000
assert all(p["nodes_expected"] == p["ops"] for p in syn), "one node per op for every kind"
assert [p["ops"] for p in syn] == sorted((p["ops"] for p in syn), reverse=True), "largest first"
assert [p["series"] for p in syn[:4]] == ["add", "foreach", "zero", "memset"], "kinds interleaved"
assert [p["bs"] for p in pts if p["part"] == "decoder"] == nc.sglang_bs_grid(256)[::-1]
assert [p["layers"] for p in pts if p["part"] == "decoder-layers"] == [8, 8, 4, 4, 2, 2, 1, 1]
assert [p["index"] for p in pts if p.get("first")] == [0, 100], "first of the synthetic and decoder pools"

# a made-up run: driver = K*nodes + 64 KiB per graph (3/4 at instantiate, 1/4 at first replay), the
# first graph of each pool +40 MiB; torch's reserved grows 2 MiB at some captures and by the kept
# logits (bs x vocab x 2 B) in the decoder; decoder graphs also hold 4 KiB per request
top = 100 << 30
for p in pts:
    layers = p.get("layers") or 0
    p["nodes"] = p.get("nodes_expected") or 12 + 14 * layers
    drv = K * p["nodes"] + 65536 + 4096 * p.get("bs", 0) + (40 * MIB if p.get("first") else 0)
    kept = 2 * 128256 * p.get("bs", 0) + (2 * MIB if p["part"] == "synthetic" and p["index"] % 3 == 0 else 0)
    p["free"] = [top, top - kept - drv * 3 // 4, top - kept - drv]
    p["reserved"] = [MIB, MIB + kept, MIB + kept]
env = {"gpu": "NVIDIA H200", "driver": "580.65.06", "torch": "2.11.0+cu130", "cuda": "13.0"}
doc = nc.make_document(env, {"sizes": [100, 500, 1000, 2500, 5000]}, pts, errors=[])
fits = {(f["name"], f["quantity"]): f for f in doc["fits"]}
assert len(doc["fits"]) == 4 + 3 + 1, sorted(fits)
f = fits["synthetic/add", "node_bytes"]
assert close(f["slope"], K) and abs(f["intercept"] - 65536) < 1e-3 and abs(f["one_off"] - 40 * MIB) < 1e-3, f
assert f["points"] == 24 and abs(f["replay_share"] - 0.25) < 1e-4 and f["low"] <= K <= f["high"], f
assert all(close(fits["synthetic/" + k, "node_bytes"]["slope"], K) and "one_off" not in fits["synthetic/" + k, "node_bytes"]
           for k in ("foreach", "zero", "memset"))
f = fits["decoder-layers/llama-3.1-8b", "node_bytes"]
assert close(f["slope"], K) and abs(f["intercept"] - (65536 + 4096 * 16)) < 1e-3 and f["points"] == 8, f
d = [p for p in pts if p["part"] == "decoder" and not p.get("first")]
f = fits["decoder/llama-3.1-8b", "node_bytes"]
assert f["model"] == "origin" and f["points"] == 34 and close(f["slope"], sum(nc.driver_bytes(p) for p in d) / (34 * 124)), f
assert close(fits["decoder/llama-3.1-8b", "bs_bytes"]["slope"], 4096)
assert abs(fits["decoder/llama-3.1-8b", "bs_bytes"]["one_off"] - 40 * MIB) < 1e-3
assert close(fits["decoder/llama-3.1-8b", "retained_bs_bytes"]["slope"], 2 * 128256, 1e-3)
rec = doc["recommended"]
assert rec["fit"] == K and rec["from"] == "decoder-layers/llama-3.1-8b" and rec["low"] <= K <= rec["high"], rec
assert "NVIDIA H200, driver 580.65.06, torch 2.11.0+cu130, CUDA 13.0" in rec["source"], rec

# the document: required keys, and it round-trips through JSON to the same fits
for k in ("schema", "version", "env", "config", "points", "fits", "recommended"):
    assert k in doc, k
assert doc["schema"] == "cgplan.node_cost" and doc["version"] == 1
assert all({"part", "series", "index", "nodes", "free", "reserved"} <= set(p) for p in doc["points"])
assert all({"name", "quantity", "model", "x", "slope", "low", "high", "points"} <= set(f) for f in doc["fits"])
json.dump(doc, open(sys.argv[2], "w"))
back = nc.load_document(sys.argv[2])
assert back == doc and nc.compute_fits(back["points"]) == doc["fits"] and nc.recommend(back) == rec

lines = nc.summary_lines(doc)
assert len(lines) == len(doc["fits"]) + 1, lines
want = ('node_bytes gpu="NVIDIA H200" driver=580.65.06 series=synthetic/add fit=15360 low=15360 high=15360 '
        'intercept=65536 one_off=41943040 r2=1.000 points=24')
assert want in lines, lines
assert lines[-1].startswith("preset node_bytes: {fit: 15360, low: "), lines[-1]

# malformed documents name the field
good = json.loads(json.dumps(doc))
def broken(change):
    d = json.loads(json.dumps(good))
    change(d)
    return lambda: nc.validate_document(d)
raises(lambda: nc.validate_document([1]), "document is not a JSON object")
raises(broken(lambda d: d.update(schema="other")), "not a node_cost document")
raises(broken(lambda d: d.update(version=2)), "unsupported version 2")
raises(broken(lambda d: d.pop("env")), "env.gpu is missing")
raises(broken(lambda d: d.update(points={})), "points is missing or not a list")
raises(broken(lambda d: d["points"][3].update(part="bogus")), "points[3].part is 'bogus'")
raises(broken(lambda d: d["points"][5].update(free=[1, 2])), "points[5].free must be 3 byte counts")
raises(broken(lambda d: d["points"][5].update(reserved=[1, True, 2])), "points[5].reserved must be 3 byte counts")
raises(broken(lambda d: d["points"][7].update(nodes=-1)), "points[7].nodes must be a non-negative integer")
raises(broken(lambda d: d["points"][7].pop("reserved")), "points[7].reserved must be 3 byte counts")

assert nc.parse_driver_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 06:54:38 UTC 2025\n") == "580.65.06"
assert nc.parse_driver_version("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.124.06  Release Build") == "570.124.06"
assert nc.parse_driver_version("GCC version: gcc 12") is None
print("pure ok")
PY
contains "$OUT" "pure ok" "pure functions: every assertion held"

# --- --refit: the saved document's summary from the command line, and its copy written by --out
expect_exit 0 python3 "$NC" --refit "$DOC"
contains "$OUT" 'node_bytes gpu="NVIDIA H200" driver=580.65.06 series=decoder-layers/llama-3.1-8b fit=15360 ' "refit: layer sweep line"
contains "$OUT" 'retained_bs_bytes gpu="NVIDIA H200" driver=580.65.06 series=decoder/llama-3.1-8b fit=256512 ' "refit: retained logits per bs"
contains "$OUT" 'preset node_bytes: {fit: 15360, low: ' "refit: preset line"
[ "$(printf '%s\n' "$OUT" | wc -l)" -eq 9 ] && pass || fail "refit: one line per fit and the preset line: $OUT"
expect_exit 0 python3 "$NC" --refit "$DOC" --out "$TEST_TMP/refit.json"
OUT=$(cat "$TEST_TMP/refit.json")
check_py 'j["schema"] == "cgplan.node_cost" and j["version"] == 1 and j["recommended"]["fit"] == 15360 and len(j["fits"]) == 8' "refit --out document"
check_py 'j == json.load(open("'"$DOC"'"))' "refit --out equals the input (fits recomputed the same)"

# --- malformed input: a clear message on stderr, nothing on stdout, exit 2
printf '{"schema": "cgplan.node_cost", ' > "$TEST_TMP/cut.json"
expect_exit 2 python3 "$NC" --refit "$TEST_TMP/cut.json"
contains "$ERR" "node_cost: error: $TEST_TMP/cut.json is not JSON" "cut JSON"
[ -z "$OUT" ] && pass || fail "nothing on stdout on error: $OUT"
expect_exit 2 python3 "$NC" --refit "$TEST_TMP/none.json"
contains "$ERR" "cannot read $TEST_TMP/none.json: No such file or directory" "missing file"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['version']=99; json.dump(d, open(sys.argv[2],'w'))" "$DOC" "$TEST_TMP/v99.json"
expect_exit 2 python3 "$NC" --refit "$TEST_TMP/v99.json"
contains "$ERR" "unsupported version 99 (this script reads 1)" "future version"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['points'][0]['free']='lots'; json.dump(d, open(sys.argv[2],'w'))" "$DOC" "$TEST_TMP/free.json"
expect_exit 2 python3 "$NC" --refit "$TEST_TMP/free.json"
contains "$ERR" "points[0].free must be 3 byte counts (before, after capture, after replay)" "bad point"
expect_exit 2 python3 "$NC" --dry-run --sizes 100,x
contains "$ERR" "expected comma-separated positive integers, got '100,x'" "bad --sizes"
expect_exit 2 python3 "$NC" --dry-run --kinds add,bogus
contains "$ERR" "unknown kind bogus" "bad --kinds"
expect_exit 2 python3 "$NC" --dry-run --graphs 0
contains "$ERR" "must be positive" "zero --graphs"

# --- --dry-run: the plan as JSON, default and --quick
expect_exit 0 python3 "$NC" --dry-run
check_py 'j["dry_run"] and j["graphs"] == 143 and j["synthetic_nodes"] == 182000' "dry-run totals"
check_py 'j["points"][0] == {"part": "synthetic", "series": "add", "ops": 5000, "nodes_expected": 5000, "index": 0, "first": True}' "dry-run: largest synthetic graph first"
check_py '[p["bs"] for p in j["points"] if p["part"] == "decoder"][:3] == [256, 248, 240] and j["config"]["layers"] == 8' "dry-run: decoder largest bs first"
expect_exit 0 python3 "$NC" --dry-run --quick
check_py 'j["config"]["sizes"] == [100, 1000, 2500] and j["graphs"] == 36 + 11 + 6 and j["config"]["max_bs"] == 64' "dry-run --quick plan"
expect_exit 0 python3 "$NC" --dry-run --model none --sizes 300 --graphs 2 --kinds foreach
check_py 'j["graphs"] == 2 and j["synthetic_nodes"] == 600' "dry-run: sizes, graphs, kinds, no decoder"

# --- a measurement: --out is required, its directory must exist; no torch or no CUDA device: exit 2
expect_exit 2 python3 "$NC"
contains "$ERR" "node_cost: error: --out PATH is required for a measurement" "no --out"
expect_exit 2 python3 "$NC" --out "$TEST_TMP/no/such/dir.json"
contains "$ERR" "--out: no directory $TEST_TMP/no/such" "--out directory missing"
expect_exit 2 env PYTHONPATH="$STANDIN/no_torch" python3 "$NC" --out "$TEST_TMP/m.json"
contains "$ERR" "node_cost: error: torch is not installed" "no torch: message"
contains "$ERR" "--dry-run, --self-test and --refit run without it" "no torch: what still runs"
expect_exit 2 env PYTHONPATH="$STANDIN/no_cuda" python3 "$NC" --quick --out "$TEST_TMP/m.json"
contains "$ERR" "node_cost: error: no CUDA device: torch 0.0-cgplan-nocuda" "no CUDA device: message"
[ ! -e "$TEST_TMP/m.json" ] && pass || fail "no document written without a GPU"
finish
