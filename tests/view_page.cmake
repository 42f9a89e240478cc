# `rigport view` pages in headless Chromium (tools/view_page_test.mjs through tools/browser.mjs):
# loads without console errors or network, clips, non-blank frames, animation, weights, picking.
# A missing node or Chromium fails the test (scripts/setup.sh installs both).
rigport_node_test(view_page view_page_test.mjs 180)
