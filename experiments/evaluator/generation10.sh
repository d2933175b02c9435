#!/bin/sh
# Generation 10 of the second evaluator, from generation 9, step by step. Every step is
# resumable: rerun the script after an interruption and it goes on where it stopped.
#
#   sh experiments/evaluator/generation10.sh            # from the repository's root
#
# It reuses generation 9's data (generation9.sh makes it: the 1-ply set g9b and the 2-ply
# candidate sets g9c and g9r, labelled by generation 8) and adds candidate plays of games
# played by generation 9, labelled by generation 9 at 2 ply (generation10_labels.sh).
# Compute on a 2-core VM (2026-12-02/03), see experiments/TRAINING.md:
#   positions of 20,000 games + 60,000 races                 ~7 min
#   2-ply labels of 569,774 candidate plays by g9            ~3 h on 2 cores
#   2-ply labels of 66,290 race-decision candidates by g9    4 min
#   training: contact ~10-20 s an epoch (inputs cached), race ~4-8 s an epoch
# PY: the Python with fastbg and the [train] extra (PyTorch CPU).
set -e
PY=${PY:-python}
R=experiments/runs/evaluator
E=experiments/evaluator
mkdir -p $R

# Generation 9 data sets (g9b, g9c, g9r and their labels): generation9.sh makes them.
[ -f $R/r9a/epoch_019.npz ] || PY=$PY sh $E/generation9.sh   # its last step

# Generation 9's nets as train.py's warm start.
$PY $E/pack.py --unpack $R/nets_g9.npz --contact $R/c9/epoch_000.npz --race $R/r9/epoch_000.npz

# Positions played by generation 9 and 2-ply labels of their candidate plays.
PY=$PY sh $E/generation10_labels.sh
[ -f $R/positions_g10r.npz ] || $PY $E/candidates.py --positions $R/positions_g10.npz \
    --race-decisions --out $R/positions_g10r
$PY $E/lookahead.py --positions $R/positions_g10r.npz --nets $R/nets_g9.npz --plies 2 \
    --candidates 3 --chunk 5000 --part 0/2 --out $R/lookahead_g10r &
$PY $E/lookahead.py --positions $R/positions_g10r.npz --nets $R/nets_g9.npz --plies 2 \
    --candidates 3 --chunk 5000 --part 1/2 --out $R/lookahead_g10r
wait

# Training from generation 9's nets on generation 9's data sets and the new 2-ply ones,
# the ranking loss on the 2-ply decisions; a higher learning rate than generation 9
# (1e-3 for 20 epochs against 3e-4 for 12 paid 0.6 mp in contact: evaluator_ablations_g10.json).
$PY $E/train.py --net contact --name c10g --width 236 \
    --positions $R/positions_g9b.npz --labels lookahead:$R/lookahead_g9b \
    --also $R/positions_g9c.npz lookahead:$R/lookahead_g9c \
    --also $R/positions_g10c.npz lookahead:$R/lookahead_g10c \
    --init $R/c9/epoch_000.npz --epochs 20 --schedule cosine --lr 1e-3 \
    --rank 16 --rank-also-only
$PY $E/train.py --net race --name r10b \
    --positions $R/positions_g9b.npz --labels lookahead:$R/lookahead_g9b \
    --also $R/positions_g9r.npz lookahead:$R/lookahead_g9r \
    --also $R/positions_g10r.npz lookahead:$R/lookahead_g10r \
    --init $R/r9/epoch_000.npz --epochs 40 --schedule cosine --lr 5e-4 \
    --rank 8 --rank-also-only
$PY $E/pack.py --contact $R/c10g/epoch_019.npz --race $R/r10b/epoch_039.npz --out $R/nets_g10.npz
echo "generation 10: $R/nets_g10.npz (scored as in experiments/TRAINING.md)"
