#!/bin/sh
# The long part of generation K, started early: positions played by generation K-1 and
# 2-ply labels of their candidate plays by generation K-1, plus the race decisions of
# 60,000 more games for the race net (a race decision comes from a game: random races have
# none). Generation K-1's nets are taken from COMMIT, the commit that shipped them, when
# nets_g<K-1>.npz is not here (generation<K-1>.sh makes the same weights).
# Resumable: rerun to go on (files and chunks that exist are kept).
#
#   sh experiments/evaluator/generation_labels.sh K COMMIT      # from the repository's root
#   sh experiments/evaluator/generation_labels.sh 11 eae72c0    # generation 11's labels
#   sh experiments/evaluator/generation_labels.sh 12 4c70d83    # generation 12's
#
# Seeds: K for the 20,000 games, 1000 + K for the 60,000. About 3.5 h on 2 cores with a
# 128-unit contact net (19 ms a contact candidate, 4 ms a race one, a process), 3.5-4 h with
# generation 11's 192 units.
set -e
[ $# -eq 2 ] || { echo "usage: sh $0 K COMMIT (generation K's labels by generation K-1, shipped in COMMIT)" >&2; exit 2; }
K=$1
P=$(($1 - 1))
PY=${PY:-python}
R=experiments/runs/evaluator
E=experiments/evaluator
mkdir -p $R
[ -f $R/nets_g$P.npz ] || git show $2:fastbg/data/nn/nn2.npz > $R/nets_g$P.npz
[ -f $R/positions_g$K.npz ] || $PY $E/positions.py --games 20000 --seed $K --races 60000 \
    --keep 0.2 --alternatives 3 --nets $R/nets_g$P.npz --out $R/positions_g$K
[ -f $R/positions_g${K}c.npz ] || $PY $E/candidates.py --positions $R/positions_g$K.npz \
    --out $R/positions_g${K}c
[ -f $R/positions_g${K}races.npz ] || $PY $E/positions.py --games 60000 --seed $((1000 + K)) \
    --races 0 --keep 0.2 --alternatives 3 --nets $R/nets_g$P.npz --out $R/positions_g${K}races
[ -f $R/positions_g${K}r.npz ] || $PY $E/candidates.py --positions $R/positions_g${K}races.npz \
    --race-decisions --out $R/positions_g${K}r
for set in g${K}r g${K}c; do
    for k in 0 1; do
        $PY $E/lookahead.py --positions $R/positions_$set.npz --nets $R/nets_g$P.npz \
            --plies 2 --candidates 3 --chunk 5000 --part $k/2 --out $R/lookahead_$set \
            >> $R/${set}_$k.log 2>&1 &
        pids="$pids $!"
    done
    for p in $pids; do wait $p; done   # set -e: a labeller that failed stops the script
    pids=
done
