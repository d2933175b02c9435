#!/bin/sh
# Generation 19 of the second evaluator (issue 36): the position families.
#
# Generation 18 plays ordinary positions as well as GNU Backgammon 0-ply, but its 0-ply
# values are far off in back games, crunched boards and the other families of
# experiments/families.py (experiments/family_bench.py: 0.32 mean equity error against its
# own rollouts in back games, gnubg 0-ply 0.08), and 0.066 even in ordinary positions (gnubg
# 0-ply 0.026): every generation since 9 learnt from 2-ply look-ahead labels and a ranking
# loss, which teach the differences between plays, not the values. This generation learns
# values from rollouts (variance-reduced, 72 games a position, first roll stratified, common
# dice within a decision) while keeping generation 18's differences between plays:
#
#   f1  20,000 family decisions (2,500 of each family but the control; families.py's
#       set-ups played on, seed 36001, the benchmark set's positions left out): each
#       position, its roll's 3 best plays by 0 ply, 2 best by the 1-ply look-ahead and a
#       random one, all rolled out (labels.py --vr --by-decision);
#   f2  12,000 more decisions of the four families generation 18 misplayed most against
#       gnubg 0-ply (prime, holding, backgame, crunched; 3,000 each, seed 36002), the same way;
#   o1  ordinary self-play (positions.py, 6,000 games of generation 18, seed 36101, 3
#       alternatives): the positions before a roll rolled out (--only roots), and every
#       decision's candidates with generation 18's own 0-ply values (lookahead.py --plies 0)
#       in the ranking and regret losses only (train.py --rank-only): the values move to
#       the rollouts, the differences between plays stay generation 18's;
#   x1  the same for crashed positions (8,000 games of nn, wild and bear-off starts, seed
#       36201, --near-crashed), for the crashed net.
#
# Every step is resumable: rerun the script after an interruption and it goes on where it
# stopped (labels.py skips its finished shards; train.py resumes after its last epoch).
# The rollout labels, the costly part (hours of CPU), are kept in git under $L, a few MB
# of shards: a new machine regenerates the position files (seeded, a few minutes;
# labels.py checks each file's digest against the one its labels were made from) and goes
# on labelling where the last commit stopped.
#
#   sh experiments/evaluator/generation19.sh            # from the repository's root
#
# PY: the Python with fastbg and the [train] extra (PyTorch CPU).
set -e
PY=${PY:-python}
R=experiments/runs/evaluator
L=experiments/labels/g19
E=experiments/evaluator
mkdir -p $R
N18=fastbg/data/nn/nn2.npz
[ -f $R/g18c/epoch_000.npz ] || $PY $E/pack.py --unpack $N18 --contact $R/g18c/epoch_000.npz \
    --race $R/g18r/epoch_000.npz --crashed $R/g18x/epoch_000.npz

# the sets
[ -f $R/positions_f1.npz ] || $PY $E/family_positions.py --per-family 2500 --seed 36001 \
    --exclude-set bench --out $R/positions_f1
[ -f $R/positions_f2.npz ] || $PY $E/family_positions.py --per-family 3000 \
    --families prime,holding,backgame,crunched --seed 36002 --exclude-set bench --out $R/positions_f2
[ -f $R/positions_o1.npz ] || $PY $E/positions.py --games 6000 --seed 36101 --alternatives 3 \
    --keep 0.3 --nets $N18 --out $R/positions_o1
[ -f $R/positions_x1.npz ] || $PY $E/positions.py --games 8000 --seed 36201 \
    --mix nn=0.4,wild=0.3,bearoff=0.3 --near-crashed --alternatives 3 --keep 0.5 --nets $N18 \
    --out $R/positions_x1
for S in o1 x1; do
    [ -f $R/lookahead0_${S}_0000.npz ] || $PY $E/lookahead.py --positions $R/positions_$S.npz \
        --out $R/lookahead0_$S --plies 0 --nets $N18
done

# rollout labels, two processes side by side: SET EXTRA-ARGS
rollouts() {
    $PY $E/labels.py --positions $R/positions_$1.npz --out $L/rollvr_$1 --per-roll 2 --seed 1 \
        --vr --shard 200 --part 0/2 $2 &
    $PY $E/labels.py --positions $R/positions_$1.npz --out $L/rollvr_$1 --per-roll 2 --seed 1 \
        --vr --shard 200 --part 1/2 $2
    wait
}
rollouts f1 --by-decision
rollouts o1 "--only roots --limit 40000"
rollouts x1 "--only roots --limit 25000"
rollouts f2 --by-decision

# the contact net (no crashed rows: the crashed net reads those)
[ -f $R/f19c/epoch_011.npz ] || $PY $E/train.py --net contact --no-crashed --name f19c \
    --init $R/g18c/epoch_000.npz --hidden 192 --width 236 \
    --positions $R/positions_f1.npz --labels $L/rollvr_f1 \
    --also $R/positions_f2.npz $L/rollvr_f2 --also $R/positions_o1.npz $L/rollvr_o1 \
    --rank-only $R/positions_o1.npz lookahead:$R/lookahead0_o1 \
    --epochs 12 --lr 5e-4 --schedule cosine --rank 16 --regret 1 --threads 2
# the crashed net (the blot inputs, as generation 18's)
[ -f $R/f19x/epoch_011.npz ] || $PY $E/train.py --net crashed --name f19x \
    --init $R/g18x/epoch_000.npz --hidden 192 --width 236 --crashed-blots 10 \
    --positions $R/positions_f1.npz --labels $L/rollvr_f1 \
    --also $R/positions_f2.npz $L/rollvr_f2 --also $R/positions_x1.npz $L/rollvr_x1 \
    --rank-only $R/positions_x1.npz lookahead:$R/lookahead0_x1 \
    --epochs 12 --lr 5e-4 --schedule cosine --rank 16 --regret 1 --threads 2
$PY $E/pack.py --contact $R/f19c/epoch_011.npz --race $R/g18r/epoch_000.npz \
    --crashed $R/f19x/epoch_011.npz --out $R/nets_g19.npz
echo "generation 19: $R/nets_g19.npz (scored as in experiments/TRAINING.md)"
