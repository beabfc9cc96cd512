# run_gif.gp: an animated GIF of a run from its pictures: those of
# `fluidlab run --save png` (DIR/frames/NNNN.png) into DIR/run.gif, or those
# of `fluidlab render` (DIR/render/NNNN.png) into DIR/render.gif, in name
# order.
#
# Usage (gnuplot 5.4, with the gif terminal of libgd):
#   gnuplot -e "dir='out'" -e "pics='render'" -e "fmt='800 600 4'" \
#           -e "out='out/render.gif'" plots/run_gif.gp
# Variables:
#   dir   the run folder
#   pics  the folder in it that holds the pictures (default frames)
#   fmt   "WIDTH HEIGHT DELAY": the pictures' size in pixels and the time
#         each frame is shown, in hundredths of a second
#   out   the GIF to write (default DIR/run.gif)
# A missing picture stops gnuplot with an error and a non-zero exit.

if (!exists("dir")) dir = "."
if (!exists("pics")) pics = "frames"
if (!exists("fmt")) fmt = "800 600 4"
w = int(word(fmt, 1))
h = int(word(fmt, 2))
delay = int(word(fmt, 3))
files = system(sprintf("ls '%s'/'%s'/[0-9][0-9][0-9][0-9].png 2>/dev/null", dir, pics))
if (words(files) == 0) { print sprintf("run_gif.gp: no %s/NNNN.png in %s", pics, dir); exit status 1 }

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
