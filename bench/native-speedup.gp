# Speedup against threads of each measure of bench/native.sh, beside the
# ideal.  bench/native_results.py sets datafile (one index block per
# measure: threads, median speedup, its low and high from the slowest and
# fastest runs), outfile, plottitle, titles (the measures, space-separated)
# and maxthreads.
set terminal pngcairo size 900,600 noenhanced font ",11"
set output outfile
set title plottitle
set xlabel "threads"
set ylabel "speedup over 1 thread (median times)"
set xrange [0.5:maxthreads + 0.5]
set yrange [0:*]
set key top left
set grid
plot x title "ideal" with lines dashtype 2 linecolor rgb "gray40", \
     for [i = 1:words(titles)] datafile index (i - 1) using 1:2:3:4 \
         title word(titles, i) with yerrorlines linewidth 2
