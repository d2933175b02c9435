# Sourced by crashed_bearoff.sh and crashed_realistic.sh (R set): the training sets of
# generation 17's crashed net and the runs after it, as train.py arguments.
# SETS: zB3's 2-ply sets; BE: the rolled-out endgames (given three times an epoch);
# CB: the bear-offs against contact of crashed_bearoff.sh.
SETS="--positions $R/positions_g15e.npz --labels lookahead:$R/lookahead_g15e"
for S in g15h h2h w1c w1x; do
    SETS="$SETS --also $R/positions_$S.npz lookahead:$R/lookahead_$S"
done
BE="--also $R/positions_be1.npz $R/rollvr_be1 --also $R/positions_be3.npz $R/rollvr_be3"
CB="--also $R/positions_cb1x.npz lookahead:$R/lookahead_cb1x"
CB="$CB --also $R/positions_cb3x.npz lookahead:$R/lookahead_cb3x"
