# Speedup of the synthetic cpu task against threads: ktask beside the same
# loop in userspace processes (the guest's practical limit) and the ideal.
# bench/results.py sets datafile, outfile, plottitle.  Columns: threads,
# ktask speedup (median), its low and high (from the slowest and fastest
# run), the same for userspace.
set terminal pngcairo size 800,560 noenhanced font ",11"
set output outfile
set title plottitle
set xlabel "threads (ktask) / processes (userspace)"
set ylabel "speedup over 1 (median times)"
stats datafile using 1 nooutput
set xrange [0.5:STATS_max + 0.5]
set yrange [0:*]
set xtics 1
set key top left
set grid
plot x title "ideal" with lines dashtype 2 linecolor rgb "gray40", \
     datafile using ($1 + 0.04):5:6:7 title "userspace processes" with yerrorlines linewidth 2 pointtype 6, \
     datafile using 1:2:3:4 title "ktask (synthetic cpu task)" with yerrorlines linewidth 2 pointtype 7
