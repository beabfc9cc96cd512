# compare.gp: the density chart of `fluidlab compare`: every solver's
# compression error against simulated time, average and maximum, one line
# per solver, from DIR/density.csv (written by bench/compare.c: one block
# per solver, blocks separated by two blank lines, each opening with the
# header "time,<solver>,<solver>" and holding time, density_err_avg and
# density_err_max as fractions).
#
# Usage (gnuplot 5.4):
#   gnuplot -e "dir='out/compare'" plots/compare.gp                 # compare_density.png
#   gnuplot -e "dir='out/compare'" -e "fmt='svg'" plots/compare.gp  # compare_density.svg
# Variables:
#   dir        the comparison folder holding density.csv (default ".")
#   fmt        'png' (pngcairo, 900x700) or 'svg' (default 'png')
#   err_scale  factor from the fractions to percent (default 100)
# A missing or empty density.csv stops gnuplot with an error and a non-zero
# exit before any picture is written.

if (!exists("dir")) dir = "."
if (!exists("fmt")) fmt = "png"
if (!exists("err_scale")) err_scale = 100.0

data_file = dir . "/density.csv"
out_file = dir . "/compare_density." . fmt

set datafile separator comma

if (fmt ne "png" && fmt ne "svg") {
    print sprintf("compare.gp: fmt='%s': expected 'png' or 'svg'", fmt)
    exit status 1
}

stats data_file using 1 name "S" nooutput
if (!exists("S_blocks") || S_records == 0) {
    print sprintf("compare.gp: %s: cannot read it, or it has no data rows", data_file)
    exit status 1
}

if (fmt eq "png") {
    set terminal pngcairo size 900,700 font ",10"
} else {
    set terminal svg size 900,700 font ",10" dynamic
}
set output out_file

set multiplot layout 2,1 title "Compression error, every solver on the same scene"
set grid
set key outside right top
set xlabel "simulated time (s)"

set ylabel "average compression (%)"
plot for [i=0:S_blocks-1] data_file index i using 1:(err_scale*$2) with lines lw 1.5 title columnheader(2)

set ylabel "largest compression (%)"
plot for [i=0:S_blocks-1] data_file index i using 1:(err_scale*$3) with lines lw 1.5 title columnheader(3)

unset multiplot
unset output
