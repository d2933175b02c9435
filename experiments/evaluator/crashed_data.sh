# Sourced by generation17.sh, crashed_bearoff.sh, crashed_realistic.sh, crashed_g15.sh and
# generation18.sh (PY, R and E set): the steps that make the crashed net's data sets, each
# resumable.

labels() {      # labels SET [NETS]: 2 ply by NETS (default generation 17's; one reply a
                # roll), on both cores
    pids=
    for j in 0 1; do
        $PY $E/lookahead.py --positions $R/positions_$1.npz --nets ${2:-$R/nets_g17.npz} \
            --plies 2 --candidates 1 --chunk 5000 --part $j/2 --out $R/lookahead_$1 \
            >> $R/$1_$j.log 2>&1 &
        pids="$pids $!"
    done
    for p in $pids; do wait $p; done
}

endgames() {    # the crashed endgames be1 and be3, rolled out (one core each)
    for S in 1:31:20000 3:33:10000; do
        k=${S%%:*}; rest=${S#*:}; seed=${rest%%:*}; n=${rest#*:}
        [ -f $R/positions_be$k.npz ] || $PY $E/positions.py --games 0 --seed $seed \
            --bar-endgames $n --out $R/positions_be$k
    done
    $PY $E/labels.py --positions $R/positions_be1.npz --out $R/rollvr_be1 --vr --per-roll 4 \
        --seed 31 --shard 500 >> $R/be1_labels.log 2>&1 &
    p1=$!
    $PY $E/labels.py --positions $R/positions_be3.npz --out $R/rollvr_be3 --vr --per-roll 4 \
        --seed 33 --shard 500 >> $R/be3_labels.log 2>&1 &
    p3=$!
    wait $p1
    wait $p3
}

bearoffs() {    # bearoffs K SEED GAMES: the bear-offs against contact cbKx, labelled at 2 ply
    [ -f $R/positions_cb$1.npz ] || $PY $E/positions.py --games $3 --seed $2 \
        --mix bearoff=1 --races 0 --keep 0.5 --alternatives 5 --lookahead-alternatives 3 \
        --nets $R/nets_g17.npz --out $R/positions_cb$1
    [ -f $R/positions_cb$1x.npz ] || $PY $E/candidates.py --positions $R/positions_cb$1.npz \
        --crashed-decisions --out $R/positions_cb$1x
    labels cb$1x
}
