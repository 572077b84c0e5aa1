# Speedup beside total work, per user: at ktask's default threads against
# one, the speedup (1-thread time / time) and the total work (CPU time /
# 1-thread CPU time).  bench/results.py sets datafile, outfile, plottitle,
# ylabel.  Columns: "user" speedup total_work.
set terminal pngcairo size 900,500 noenhanced font ",11"
set output outfile
set title plottitle
set ylabel ylabel
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.6 border -1
set yrange [0:*]
set grid ytics
set key top right
set xtics nomirror rotate by -15
plot datafile using 2:xtic(1) title "speedup (1-thread time / time)" linecolor rgb "#4a78b0", \
     datafile using 3 title "total work (CPU time / 1-thread CPU time; goal <= 1.15)" linecolor rgb "#c0504d", \
     datafile using ($0 - 0.15):2:(sprintf("%.2f", $2)) with labels offset 0,0.7 notitle, \
     datafile using ($0 + 0.15):3:(sprintf("%.2f", $3)) with labels offset 0,0.7 notitle
