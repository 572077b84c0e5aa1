# Bars with min..max error bars: the contention and starvation cases.
# bench/results.py sets datafile, outfile, plottitle, ylabel.  Columns:
# "label" median min max.
set terminal pngcairo size 800,500 noenhanced font ",11"
set output outfile
set title plottitle
set ylabel ylabel
set style fill solid 0.6 border -1
set boxwidth 0.6
set yrange [0:*]
set grid ytics
unset key
plot datafile using 0:2:xtic(1) with boxes linecolor rgb "#4a78b0", \
     datafile using 0:2:3:4 with yerrorbars linecolor rgb "black" pointtype 0, \
     datafile using 0:($2 / 2):(sprintf("%.0f", $2)) with labels
