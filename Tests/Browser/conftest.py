# pytest glue for test_web_client.py: lets a fixture's teardown know whether its test failed,
# so the browsers of a failed test leave a screenshot, the page and their console behind.

import pytest


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    report = yield
    setattr(item, f"rep_{report.when}", report)
    return report
