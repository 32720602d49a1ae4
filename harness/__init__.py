"""cutover's migration and shadow-verification harness."""
