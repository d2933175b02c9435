#!/bin/sh
# Generation 12 of the second evaluator, from generation 11, step by step. Every step is
# resumable: rerun the script after an interruption and it goes on where it stopped.
#
#   sh experiments/evaluator/generation12.sh            # from the repository's root
#
# It reuses generation 11's data (generation11.sh makes it: g9b, g9c, g9r, g10c, g10r, g11c,
# g11r) and adds generation 11's 2-ply labels of its own games (generation_labels.sh 12):
# the first 44 of the 114 chunks of contact and crashed candidate plays (220,000 of 568,687:
# what was labelled when generation 12 was trained), all 197,205 race-decision candidates,
# and two more sets of race-decision candidates of 60,000 games each (seeds 2012 and 3012).
# Compute on a 2-core VM (2026-12-03), see experiments/TRAINING.md:
#   2-ply labels of the 568,687 candidate plays by g11       ~3.5-4 h on 2 cores (generation
#                                                            12 reads the first 220,000: ~1 h 20 min)
#   positions of 60,000 games + their race candidates, twice  ~5 min each
#   2-ply labels of 3 x ~198,000 race-decision candidates    ~7-10 min each on 2 cores
#   training: contact ~20-30 s an epoch, race ~6-10 s an epoch
# PY: the Python with fastbg and the [train] extra (PyTorch CPU).
set -e
PY=${PY:-python}
R=experiments/runs/evaluator
E=experiments/evaluator
mkdir -p $R

# Generation 11's data sets: generation11.sh makes them (and the earlier ones before them).
[ -f $R/r11a/epoch_039.npz ] || PY=$PY sh $E/generation11.sh   # its last training step

# Positions played by generation 11 and 2-ply labels of their candidate plays; it takes
# generation 11's nets from git (nets_g11.npz) if they are not here. Generation 12 reads
# only the first 44 chunks of the contact candidates (below), so the labelling may be
# stopped once lookahead_g12c_0000 .. _0043 exist (and the race ones, labelled first).
PY=$PY sh $E/generation_labels.sh 12 4c70d83

# Two more sets of race decisions, from 60,000 games of generation 11 each.
for S in 2012 3012; do
    [ -f $R/positions_s${S}races.npz ] || $PY $E/positions.py --games 60000 --seed $S \
        --races 0 --keep 0.2 --alternatives 3 --nets $R/nets_g11.npz --out $R/positions_s${S}races
    [ -f $R/positions_s${S}r.npz ] || $PY $E/candidates.py --positions $R/positions_s${S}races.npz \
        --race-decisions --out $R/positions_s${S}r
    for k in 0 1; do
        $PY $E/lookahead.py --positions $R/positions_s${S}r.npz --nets $R/nets_g11.npz \
            --plies 2 --candidates 3 --chunk 5000 --part $k/2 --out $R/lookahead_s${S}r \
            >> $R/s${S}r_$k.log 2>&1 &
        pids="$pids $!"
    done
    for p in $pids; do wait $p; done   # set -e: a labeller that failed stops the script
    pids=
done

# Generation 11's nets as train.py's warm start (the same weights as its c11w and r11a).
$PY $E/pack.py --unpack $R/nets_g11.npz --contact $R/c11/epoch_000.npz --race $R/r11/epoch_000.npz

# Training from generation 11's nets on all the data sets so far, generation 11's schedule
# (contact 192 hidden units, 20 epochs at 1e-3; race 128, 40 epochs at 5e-4; ranking loss
# on the 2-ply decisions).
$PY $E/train.py --net contact --name c12a --width 236 --hidden 192 \
    --positions $R/positions_g9b.npz --labels lookahead:$R/lookahead_g9b \
    --also $R/positions_g9c.npz lookahead:$R/lookahead_g9c \
    --also $R/positions_g10c.npz lookahead:$R/lookahead_g10c \
    --also $R/positions_g11c.npz lookahead:$R/lookahead_g11c \
    --also $R/positions_g12c.npz lookahead:$R/lookahead_g12c@44 \
    --init $R/c11/epoch_000.npz --epochs 20 --schedule cosine --lr 1e-3 \
    --rank 16 --rank-also-only
$PY $E/train.py --net race --name r12d \
    --positions $R/positions_g9b.npz --labels lookahead:$R/lookahead_g9b \
    --also $R/positions_g9r.npz lookahead:$R/lookahead_g9r \
    --also $R/positions_g10r.npz lookahead:$R/lookahead_g10r \
    --also $R/positions_g11r.npz lookahead:$R/lookahead_g11r \
    --also $R/positions_g12r.npz lookahead:$R/lookahead_g12r \
    --also $R/positions_s2012r.npz lookahead:$R/lookahead_s2012r \
    --also $R/positions_s3012r.npz lookahead:$R/lookahead_s3012r \
    --init $R/r11/epoch_000.npz --epochs 40 --schedule cosine --lr 5e-4 \
    --rank 8 --rank-also-only
$PY $E/pack.py --contact $R/c12a/epoch_019.npz --race $R/r12d/epoch_039.npz --out $R/nets_g12.npz
echo "generation 12: $R/nets_g12.npz (scored as in experiments/TRAINING.md)"
