"""Where documents come from beyond one local folder: web pages, whole sites, GitHub repos."""
