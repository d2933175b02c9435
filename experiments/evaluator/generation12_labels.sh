#!/bin/sh
# The long part of generation 12, started early: positions played by generation 11 and
# 2-ply labels of their candidate plays by generation 11, as generation11.sh one generation
# on, plus the race decisions of 60,000 more games for the race net (a race decision comes
# from a game: random races have none).
# Resumable: rerun to go on (files and chunks that exist are kept).
#
#   sh experiments/evaluator/generation12_labels.sh      # from the repository's root
#
# About 3.5-4 h on 2 cores (about 20 ms a contact candidate, 4 ms a race one, a process;
# generation 11's contact net has 192 hidden units, generation 10's had 128).
set -e
PY=${PY:-python}
R=experiments/runs/evaluator
E=experiments/evaluator
mkdir -p $R
# Generation 11's nets as shipped in 4c70d83 (generation11.sh makes the same weights).
[ -f $R/nets_g11.npz ] || git show 4c70d83:fastbg/data/nn/nn2.npz > $R/nets_g11.npz
[ -f $R/positions_g12.npz ] || $PY $E/positions.py --games 20000 --seed 12 --races 60000 \
    --keep 0.2 --alternatives 3 --nets $R/nets_g11.npz --out $R/positions_g12
[ -f $R/positions_g12c.npz ] || $PY $E/candidates.py --positions $R/positions_g12.npz \
    --out $R/positions_g12c
[ -f $R/positions_g12races.npz ] || $PY $E/positions.py --games 60000 --seed 1012 --races 0 \
    --keep 0.2 --alternatives 3 --nets $R/nets_g11.npz --out $R/positions_g12races
[ -f $R/positions_g12r.npz ] || $PY $E/candidates.py --positions $R/positions_g12races.npz \
    --race-decisions --out $R/positions_g12r
for set in g12r g12c; do
    for k in 0 1; do
        $PY $E/lookahead.py --positions $R/positions_$set.npz --nets $R/nets_g11.npz \
            --plies 2 --candidates 3 --chunk 5000 --part $k/2 --out $R/lookahead_$set \
            >> $R/${set}_$k.log 2>&1 &
    done
    wait
done
