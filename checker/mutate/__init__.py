"""The mutation campaign: which wrong specs would the checker let through?"""
