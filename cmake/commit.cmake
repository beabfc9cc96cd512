# Writes OUT (a C header defining FL_COMMIT) from `git rev-parse --short HEAD`
# in SRC (outside a git checkout, from the environment's FL_COMMIT), touching
# it only when the commit changed. Run at every build so
# that run.json and the benchmark log name the commit that was built.
execute_process(COMMAND git rev-parse --short HEAD WORKING_DIRECTORY ${SRC}
  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
# docs/ (the benchmark log among them) does not make a build dirty
execute_process(COMMAND git status --porcelain --untracked-files=no -- . :!docs WORKING_DIRECTORY ${SRC}
  OUTPUT_VARIABLE dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT commit AND DEFINED ENV{FL_COMMIT})
  # a copy without .git (a lent GPU machine's): the commit it was copied from
  set(commit "$ENV{FL_COMMIT}")
elseif(NOT commit)
  set(commit "unknown")
elseif(dirty)
  set(commit "${commit}-dirty")
endif()
set(text "#define FL_COMMIT \"${commit}\"\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE ${OUT} "${text}")
endif()
