#!/usr/bin/env bash
# Every built-in model estimates from --model and a GPU, dense and MoE, for every attention
# backend its kind allows; a term from a coefficient only where the model's own preset gives it (issue 8).
source "$CGPLAN_TESTLIB"
set -e
expect_exit 0 "$CGPLAN" presets --format json
models=$(printf '%s' "$OUT" | python3 -c "import json,sys; print(' '.join(p['name'] for p in json.load(sys.stdin)['presets'] if p['kind']=='model'))")
[ "$(echo $models | wc -w)" -ge 20 ] && pass || fail "expected 20+ built-in models, got: $models"
mla_backends="flashinfer trtllm_mla flashmla cutlass_mla triton fa3"
gqa_backends="flashinfer fa3 fa4 triton trtllm_mha aiter torch_native"
walked=""
for m in $models; do
  expect_exit 0 "$CGPLAN" estimate --model "$m" --set gpu=b200 --set tp=8 --format json
  kind=$(printf '%s' "$OUT" | python3 -c "
import json,sys; j=json.load(sys.stdin)
ab = j['knobs']['attention_backend']
print('mla' if j['terms'][[t['id'] for t in j['terms']].index('static.kv_index')]['formula'].find('block') >= 0 or ab.find('mla') >= 0 or ab.find('nsa') >= 0 else 'gqa')")
  # No model preset carries a coefficient (the article's K3 fit belongs to its deployment presets):
  # every term comes from its mechanism, and none is unknown.
  check_py "all(t['source'] != 'coefficient' for t in j['terms']) and j['total_complete'] is True" "$m: every term from its mechanism"
  check_py "j['total_bytes'] > 0 and j['budget']['weights_source'] in ('computed', 'measured')" "$m: a total and its weights"
  # Which backends an attention kind takes is the kind's, not the model's: walked once per kind.
  [ "$kind" = mla ] && backends=$mla_backends || backends=$gqa_backends
  case " $walked " in *" $kind "*) continue ;; esac
  walked="$walked $kind"
  for b in $backends; do
    expect_exit 0 "$CGPLAN" estimate --model "$m" --set gpu=b200 --set tp=8 --set attention_backend=$b --format json
    check_py "'backend_unsupported' not in [w['code'] for w in j['warnings']]" "$m with $b"
  done
done
# Every model on every GPU at its smallest fitting layout, in range and complete: the unit test
# test_every_plan (in process; the binary here drives one plan per model).
# A backend of the other attention kind is refused as SGLang refuses it.
expect_exit 0 "$CGPLAN" estimate --model qwen3-8b --set gpu=h100 --set attention_backend=trtllm_mla --format json
check_py "'backend_unsupported' in [w['code'] for w in j['warnings']]" "GQA with an MLA backend"
finish
