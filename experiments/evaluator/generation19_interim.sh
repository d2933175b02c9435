#!/bin/sh
# Generation 19, interim (issue 36): generation 19's recipe on the labels finished so far.
#
# generation19.sh labels four sets before it trains (about 230,000 positions, many hours
# of both cores); training takes minutes (6 s an epoch for the contact net). This script
# trains the same nets from generation 18's on the f1 shards already in git (326 of 443
# shards, 65,200 of f1's 88,521 positions, at commit 7cb545d), with the o1 and x1
# decisions' generation-18 0-ply values in the ranking and regret losses only, to learn
# whether rollout labels of the families fix the blind spots before the rest is labelled.
# Scored by family_bench.py score, errorrate.py score on the family decisions and on the
# standard decisions (experiments/TRAINING.md, "Generation 19, interim").
#
#   sh experiments/evaluator/generation19_interim.sh    # after generation19.sh made the sets
#
# The f1 labels grow while generation19.sh runs: pin them with F1=DIR (a directory holding
# only the shards to use), or check out 7cb545d's experiments/labels/g19 for the figures.
set -e
PY=${PY:-python}
R=experiments/runs/evaluator
L=experiments/labels/g19
E=experiments/evaluator
F1=${F1:-$L/rollvr_f1}
for f in positions_f1.npz positions_o1.npz positions_x1.npz lookahead0_o1_0000.npz \
        lookahead0_x1_0000.npz g18c/epoch_000.npz g18x/epoch_000.npz g18r/epoch_000.npz; do
    [ -e $R/$f ] || { echo "generation19_interim.sh: $R/$f missing: run generation19.sh first (it makes the sets, then labels)"; exit 2; }
done
[ -f $R/i19c/epoch_011.npz ] || $PY $E/train.py --net contact --no-crashed --name i19c \
    --init $R/g18c/epoch_000.npz --hidden 192 --width 236 \
    --positions $R/positions_f1.npz --labels $F1 \
    --rank-only $R/positions_o1.npz lookahead:$R/lookahead0_o1 \
    --epochs 12 --lr 5e-4 --schedule cosine --rank 16 --regret 1 --threads 2
[ -f $R/i19x/epoch_011.npz ] || $PY $E/train.py --net crashed --name i19x \
    --init $R/g18x/epoch_000.npz --hidden 192 --width 236 --crashed-blots 10 \
    --positions $R/positions_f1.npz --labels $F1 \
    --rank-only $R/positions_x1.npz lookahead:$R/lookahead0_x1 \
    --epochs 12 --lr 5e-4 --schedule cosine --rank 16 --regret 1 --threads 2
$PY $E/pack.py --contact $R/i19c/epoch_011.npz --race $R/g18r/epoch_000.npz \
    --crashed $R/i19x/epoch_011.npz --out $R/nets_i19.npz
echo "generation 19, interim: $R/nets_i19.npz"
