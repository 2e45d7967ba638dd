"""The GitHub adapters, thin and without decisions: PyGithub, gql, git checkout and push."""
