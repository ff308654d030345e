# Turns presets/{models,gpus,deployments}/*.yaml into a C table {file name, text} so the binary
# carries its built-in presets and needs no install path. Run by CMake at build time (cmake -P).
# A preset is known by its file name alone: the folders sort them by kind for people.
file(GLOB files ${DIR}/models/*.yaml ${DIR}/gpus/*.yaml ${DIR}/deployments/*.yaml)
list(SORT files)
set(body "/* Generated from the YAML files of presets/ by cmake/embed_presets.cmake. Do not edit. */\n")
string(APPEND body "#include \"preset.h\"\n\n")
set(table "const preset_builtin_file preset_builtin_files[] = {\n")
set(i 0)
foreach(f ${files})
  get_filename_component(name ${f} NAME)
  file(READ ${f} hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
  string(APPEND body "static const char preset_text_${i}[] = {${hex}0x00};\n")
  string(APPEND table "    {\"${name}\", preset_text_${i}},\n")
  math(EXPR i "${i}+1")
endforeach()
string(APPEND table "    {0, 0}\n};\n")
file(WRITE ${OUT} "${body}\n${table}")
