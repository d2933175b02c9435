#!/bin/sh
# Generation 14 of the second evaluator: generation 13's contact and crashed nets and a new
# race net trained on four more sets of race decisions, labelled at 2 ply by generation 13,
# step by step. Every step is resumable: rerun the script after an interruption and it goes
# on where it stopped.
#
#   sh experiments/evaluator/generation14.sh            # from the repository's root
#
# It reuses generation 13's data and nets (generation13.sh makes them). The new race sets
# are the race decisions of four sets of 60,000 games: seeds 4012 and 5012 played by
# generation 12 (positions_s*races.npz, the games of generation 13's crashed sets), 6012
# and 1014 by generation 13 (1014 is generation_labels.sh 14's race set).
# Compute on a 2-core VM (2026-12-03), see experiments/TRAINING.md:
#   60,000 games a set                                  ~5 min on 1 core
#   2-ply labels of ~197,000 race candidates a set      ~11 min on 1 core (idle machine)
#   training the race net, 40 epochs                    ~5 min (1 thread)
# PY: the Python with fastbg and the [train] extra (PyTorch CPU).
set -e
PY=${PY:-python}
R=experiments/runs/evaluator
E=experiments/evaluator
mkdir -p $R

[ -f $R/nets_g13.npz ] || PY=$PY sh $E/generation13.sh

[ -f $R/r11/epoch_000.npz ] || $PY $E/pack.py --unpack $R/nets_g11.npz \
    --contact $R/c11/epoch_000.npz --race $R/r11/epoch_000.npz

# Race decisions of 60,000 games a set (NAME:SEED:NETS; g14's names and seed are those of
# generation_labels.sh 14, whose 2-ply contact labels generation 14 does not use), labelled
# at 2 ply by generation 13.
for S in s4012:4012:g12 s5012:5012:g12 s6012:6012:g13 g14:1014:g13; do
    N=${S%%:*}
    G=${S##*:}
    SEED=${S#*:}
    SEED=${SEED%%:*}
    [ -f $R/positions_${N}races.npz ] || $PY $E/positions.py --games 60000 \
        --seed $SEED --races 0 --keep 0.2 --alternatives 3 --nets $R/nets_$G.npz \
        --out $R/positions_${N}races
    [ -f $R/positions_${N}r.npz ] || $PY $E/candidates.py \
        --positions $R/positions_${N}races.npz --race-decisions --out $R/positions_${N}r
    pids=
    for k in 0 1; do
        $PY $E/lookahead.py --positions $R/positions_${N}r.npz --nets $R/nets_g13.npz \
            --plies 2 --candidates 3 --chunk 5000 --part $k/2 --out $R/lookahead_${N}r \
            >> $R/${N}r_$k.log 2>&1 &
        pids="$pids $!"
    done
    for p in $pids; do wait $p; done   # set -e: a labeller that failed stops the script
done

RACE_DECISIONS=
for N in s4012 s5012 s6012 g14; do
    RACE_DECISIONS="$RACE_DECISIONS --also $R/positions_${N}r.npz lookahead:$R/lookahead_${N}r"
done
# The race net: generation 12's recipe (r12d) with the four new sets and a learning rate of
# 2e-3 instead of 5e-4 (chosen on a separate set of 4,000 race decisions, TRAINING.md).
$PY $E/train.py --net race --name r14g \
    --positions $R/positions_g9b.npz --labels lookahead:$R/lookahead_g9b \
    --also $R/positions_g9r.npz lookahead:$R/lookahead_g9r \
    --also $R/positions_g10r.npz lookahead:$R/lookahead_g10r \
    --also $R/positions_g11r.npz lookahead:$R/lookahead_g11r \
    --also $R/positions_g12r.npz lookahead:$R/lookahead_g12r \
    --also $R/positions_s2012r.npz lookahead:$R/lookahead_s2012r \
    --also $R/positions_s3012r.npz lookahead:$R/lookahead_s3012r \
    $RACE_DECISIONS \
    --init $R/r11/epoch_000.npz --epochs 40 --schedule cosine --lr 2e-3 \
    --rank 8 --rank-also-only --threads 1
$PY $E/pack.py --contact $R/c12a/epoch_019.npz --race $R/r14g/epoch_039.npz \
    --crashed $R/x13crash/epoch_019.npz --out $R/nets_g14.npz
echo "generation 14: $R/nets_g14.npz (scored as in experiments/TRAINING.md)"
