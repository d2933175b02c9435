#!/bin/sh
# The long part of generation 15: 2-ply labels by generation 14 (shipped in 90504fe), spent
# on the hard decisions first (hard.py: the decisions where generation 14's 0-ply choice and
# its 1-ply look-ahead disagree), then on the race decisions, then on the other decisions.
# Resumable: rerun to go on (files and chunks that exist are kept).
#
#   sh experiments/evaluator/generation15_labels.sh          # from the repository's root
#   HARD="$(seq 13 30)" sh experiments/evaluator/generation15_labels.sh    # sets h13..h30
#
# Sets (seeds as generation_labels.sh 15 has them for g15 and g15races):
#   g15     20,000 games (seed 15): hard candidates g15h, the others g15e
#   g15r    race-decision candidates of 60,000 games (seed 1015)
#   g15e    the rest of g15's decisions (before the hard sets)
#   h2..h30 20,000 games each (seeds 2015..30015): hard candidates only (h<k>h)
# The 2-ply labels of g15h, g15r and h2h value 3 candidate replies a roll at 1 ply (as every
# generation before); the later sets 1 (the 0-ply best reply), about half the time: on 3,000
# candidates of g15h the two labels' equity differences within a decision differ by 0.0010
# on average, a tenth of generation 14's own 0-ply error there (0.0112; TRAINING.md).
# Compute on the 2-core VM (2026-12-04): 20,000 games ~2 min, hard.py ~2.5 min, 2-ply labels
# ~19 ms a contact candidate on one core at 3 candidates, ~10 ms at 1 (115,000 hard
# candidates a set: ~20 min on 2 cores at 3 candidates).
# PY: the Python with fastbg installed.
set -e
PY=${PY:-python}
R=experiments/runs/evaluator
E=experiments/evaluator
mkdir -p $R
[ -f $R/nets_g14.npz ] || git show 90504fe:fastbg/data/nn/nn2.npz > $R/nets_g14.npz

label() {   # label SET C: 2-ply labels of positions_SET.npz by generation 14 (C candidate
            # replies a roll), two processes
    pids=
    for k in 0 1; do
        $PY $E/lookahead.py --positions $R/positions_$1.npz --nets $R/nets_g14.npz \
            --plies 2 --candidates $2 --chunk 5000 --part $k/2 --out $R/lookahead_$1 \
            >> $R/$1_$k.log 2>&1 &
        pids="$pids $!"
    done
    for p in $pids; do wait $p; done   # set -e: a labeller that failed stops the script
}

games() {   # games NAME SEED: 20,000 games of generation 14 and their decisions' candidates
    [ -f $R/positions_$1.npz ] || $PY $E/positions.py --games 20000 --seed $2 --races 0 \
        --keep 0.2 --alternatives 3 --nets $R/nets_g14.npz --out $R/positions_$1
    [ -f $R/positions_${1}c.npz ] || $PY $E/candidates.py --positions $R/positions_$1.npz \
        --out $R/positions_${1}c
}

# g15: generation_labels.sh 15's games (its random races included), split into hard and rest
[ -f $R/positions_g15.npz ] || $PY $E/positions.py --games 20000 --seed 15 --races 60000 \
    --keep 0.2 --alternatives 3 --nets $R/nets_g14.npz --out $R/positions_g15
[ -f $R/positions_g15c.npz ] || $PY $E/candidates.py --positions $R/positions_g15.npz \
    --out $R/positions_g15c
[ -f $R/positions_g15h.npz ] || $PY $E/hard.py --positions $R/positions_g15c.npz \
    --nets $R/nets_g14.npz --out $R/positions_g15h --rest $R/positions_g15e
label g15h 3

# the race decisions of 60,000 more games
[ -f $R/positions_g15races.npz ] || $PY $E/positions.py --games 60000 --seed 1015 --races 0 \
    --keep 0.2 --alternatives 3 --nets $R/nets_g14.npz --out $R/positions_g15races
[ -f $R/positions_g15r.npz ] || $PY $E/candidates.py --positions $R/positions_g15races.npz \
    --race-decisions --out $R/positions_g15r
label g15r 3

# the rest of g15's decisions (every decision of g15 then has 2-ply labels)
label g15e 1

# more hard decisions: more sets of 20,000 games, only their hard candidates labelled
# (HARD: which sets; h2..h12 by default)
for k in ${HARD:-2 3 4 5 6 7 8 9 10 11 12}; do
    games h$k ${k}015
    [ -f $R/positions_h${k}h.npz ] || $PY $E/hard.py --positions $R/positions_h${k}c.npz \
        --nets $R/nets_g14.npz --out $R/positions_h${k}h
    if [ $k -eq 2 ]; then label h${k}h 3; else label h${k}h 1; fi
done
