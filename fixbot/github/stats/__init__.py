"""`fixbot stats`: what fixbot did for a repository, read from its own records on GitHub."""
