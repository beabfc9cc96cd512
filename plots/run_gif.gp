# run_gif.gp: an animated GIF of a run from the pictures `fluidlab render`
# made of its frames (DIR/frames/NNNN.png, in name order), into DIR/run.gif
# (or OUT); also the GIF of `fluidlab run --save png`.
#
# Usage (gnuplot 5.4, with the gif terminal of libgd):
#   gnuplot -e "dir='out'" -e "fmt='800 600 4'" plots/run_gif.gp
# Variables:
#   dir   the run folder
#   fmt   "WIDTH HEIGHT DELAY": the pictures' size in pixels and the time
#         each frame is shown, in hundredths of a second
#   out   the GIF to write (default DIR/run.gif)
# A missing picture stops gnuplot with an error and a non-zero exit.

if (!exists("dir")) dir = "."
if (!exists("fmt")) fmt = "800 600 4"
w = int(word(fmt, 1))
h = int(word(fmt, 2))
delay = int(word(fmt, 3))
files = system(sprintf("ls '%s'/frames/[0-9][0-9][0-9][0-9].png 2>/dev/null", dir))
if (words(files) == 0) { print sprintf("run_gif.gp: no frames/NNNN.png in %s", dir); exit status 1 }

set terminal gif animate delay delay size w, h optimize
if (!exists("out")) out = sprintf("%s/run.gif", dir)
set output out
unset border
unset tics
unset key
set margins 0, 0, 0, 0
set xrange [0:w - 1]
set yrange [0:h - 1]
set size ratio -1
do for [f in files] {
    plot f binary filetype=png with rgbimage
}
unset output
