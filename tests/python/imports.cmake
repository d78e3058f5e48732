# The learner package's layers (docs/architecture.md, "The learner package's layers"),
# label python: python_import_graph reads python/craftground_capture's modules with ast and
# fails on an import circle (lazy imports too), an import of a module not below the
# importer's layer, and a module reaching another module's private names.
if(CG_PYTHON3)
  add_test(NAME python_import_graph COMMAND ${CG_PYTHON3}
           ${CMAKE_CURRENT_LIST_DIR}/test_import_graph.py ${PROJECT_SOURCE_DIR}/python/craftground_capture)
  set_tests_properties(python_import_graph PROPERTIES LABELS python TIMEOUT 60)
endif()
